//! The single integration test binary (house style: one binary keeps link
//! time low); each area is a module.

mod batch;
mod cli;
mod html;
mod identity;
mod props;
mod raw;
mod stats_vectors;
mod testdata;
