//! The benchmark report: one row per figure, printed as a table and written
//! as Markdown with the machine it ran on.

use anyhow::Result;
use std::fmt::Write as _;

/// One measured figure.
pub struct Row {
    pub suite: &'static str,
    pub name: String,
    pub measured: String,
    pub baseline: String,
    pub ratio: Option<f64>,
    pub target: String,
    pub pass: bool,
}

#[derive(Default)]
pub struct Report {
    rows: Vec<Row>,
}

impl Report {
    pub fn new() -> Report {
        Report::default()
    }

    pub fn add(&mut self, row: Row) {
        let ratio = row.ratio.map_or_else(String::new, |r| format!("{r:.2}x"));
        println!(
            "{:<6} {:<46} {:>18} {:>22} {:>7}  target {:<18} {}",
            row.suite,
            row.name,
            row.measured,
            row.baseline,
            ratio,
            row.target,
            if row.pass { "PASS" } else { "MISS" }
        );
        self.rows.push(row);
    }

    pub fn finish(self) -> Result<()> {
        let mut md = String::new();
        let _ = writeln!(md, "Machine: {}\n", machine());
        let _ = writeln!(
            md,
            "| suite | figure | measured | baseline | ratio | target | |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|");
        for r in &self.rows {
            let ratio = r.ratio.map_or_else(String::new, |x| format!("{x:.2}x"));
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.suite,
                r.name,
                r.measured,
                r.baseline,
                ratio,
                r.target,
                if r.pass { "pass" } else { "**miss**" }
            );
        }
        let dir = crate::root().join("target/bench");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("results.md");
        std::fs::write(&path, &md)?;
        let missed = self.rows.iter().filter(|r| !r.pass).count();
        eprintln!(
            "\n{} figures, {} missed; Markdown in {}",
            self.rows.len(),
            missed,
            path.display()
        );
        Ok(())
    }
}

/// CPU model, cores, kernel and toolchain, for the record.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    format!("{cpu}, {cores} cores, Linux {}, {rustc}", kernel.trim())
}
