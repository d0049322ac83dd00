//! Benchmarks: see docs/benchmarks.md.

use anyhow::{Result, bail};

pub fn run(_suites: &[String]) -> Result<()> {
    bail!("no benchmarks yet")
}
