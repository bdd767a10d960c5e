//! The single integration test binary (house style: one binary keeps link
//! time low); each area is a module.

mod batch;
mod bounds;
mod careless;
mod cli;
mod codecs;
mod damage;
mod demangle;
mod engines;
mod export;
mod filters;
mod history;
mod html;
mod identity;
mod io;
mod kernel_maps;
mod malformed;
mod noise;
mod numbers;
mod parallel;
mod perfdata;
mod props;
mod props_more;
mod raw;
mod report;
mod report_output;
mod runs;
mod skip;
mod stats_filters;
mod stats_vectors;
mod table;
mod testdata;
mod text_variants;
mod user;
mod views;
mod words;
