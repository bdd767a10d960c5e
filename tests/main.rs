//! The single integration test binary (house style: one binary keeps link
//! time low); each area is a module.

mod props;
mod raw;
