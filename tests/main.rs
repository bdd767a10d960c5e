//! The single integration test binary (house style: one binary keeps link
//! time low); each area is a module.

mod batch;
mod bounds;
mod careless;
mod cli;
mod contamination;
mod damage;
mod engines;
mod export;
mod html;
mod identity;
mod io;
mod kernel_maps;
mod malformed;
mod noise;
mod parallel;
mod perfdata;
mod props;
mod props_more;
mod raw;
mod report;
mod report_output;
mod skip;
mod stats_vectors;
mod table;
mod testdata;
mod user;
mod views;
mod words;
