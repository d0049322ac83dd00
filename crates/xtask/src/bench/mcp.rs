//! The MCP figure: `tools/call` of file_read on a small file through
//! `ikigai mcp`, against the official MCP filesystem reference server, both
//! driven by the official Python SDK in the same run.

use super::{Env, Report, Row};
use anyhow::{Context, Result, ensure};
use std::path::{Path, PathBuf};
use std::process::Command;

const SUITE: &str = "mcp";
const SCRIPT: &str = include_str!("mcp_bench.py");
const SDK: &str = "mcp==2.3.0";
const REFERENCE: &str = "@modelcontextprotocol/server-filesystem@2026.8.31";

pub fn run(env: &Env, report: &mut Report) -> Result<()> {
    let python = sdk_python()?;
    let reference = reference_server(&env.data)?;
    let dir = env.data.join("mcp");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("small.txt");
    std::fs::write(&file, "hello\nworld\n")?;
    let script = dir.join("mcp_bench.py");
    std::fs::write(&script, SCRIPT)?;
    let ikigai = env.tool("ikigai");
    let libexec = crate::root().join("libexec/ikigai");
    let file_arg = serde_json::json!({"file_path": file}).to_string();
    let ref_arg = serde_json::json!({"path": file}).to_string();
    let ours = |name: &str, extra: &[&str]| {
        let mut group = vec![
            name.to_owned(),
            "file_read".to_owned(),
            file_arg.clone(),
            "env".to_owned(),
        ];
        group.push(format!("IKIGAI_LIBEXEC_DIR={}", libexec.display()));
        group.push(ikigai.display().to_string());
        group.push("mcp".to_owned());
        group.extend(extra.iter().map(|s| (*s).to_owned()));
        group
    };
    let mut args = vec!["1000".to_owned()];
    args.extend(ours("ours", &[]));
    args.push("--".into());
    args.extend(vec![
        "reference".to_owned(),
        "read_text_file".to_owned(),
        ref_arg,
        "node".to_owned(),
    ]);
    args.push(reference.display().to_string());
    args.push(dir.display().to_string());
    args.push("--".into());
    args.extend(ours("ours_spawned", &["--no-in-process"]));
    eprintln!("timing 1,000 tools/call per server (three servers, interleaved)");
    let out = Command::new(&python)
        .arg(&script)
        .args(&args)
        .output()
        .context("running the MCP benchmark client")?;
    ensure!(
        out.status.success(),
        "MCP benchmark client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let median = |name: &str| results[name]["median_ms"].as_f64().unwrap_or(f64::NAN);
    let (o, r, s) = (median("ours"), median("reference"), median("ours_spawned"));
    let ratio = o / r;
    report.add(Row {
        suite: SUITE,
        name: "tools/call file_read small file via Python SDK (median of 1000)".into(),
        measured: format!("{o:.3} ms"),
        baseline: format!("reference {r:.3} ms"),
        ratio: Some(ratio),
        target: "<= 1.00x reference".into(),
        pass: ratio <= 1.0,
    });
    report.add(Row {
        suite: SUITE,
        name: "  same, every call spawned (--no-in-process)".into(),
        measured: format!("{s:.3} ms"),
        baseline: format!("reference {r:.3} ms"),
        ratio: Some(s / r),
        target: "(information)".into(),
        pass: true,
    });
    let (or, rr) = (median("ours_raw"), median("reference_raw"));
    report.add(Row {
        suite: SUITE,
        name: "  same as raw JSON-RPC lines, no SDK (server latency)".into(),
        measured: format!("{or:.3} ms"),
        baseline: format!("reference {rr:.3} ms"),
        ratio: Some(or / rr),
        target: "(information)".into(),
        pass: true,
    });
    report.add(Row {
        suite: SUITE,
        name: "  p90: ours / reference".into(),
        measured: format!(
            "{:.3} ms",
            results["ours"]["p90_ms"].as_f64().unwrap_or(f64::NAN)
        ),
        baseline: format!(
            "{:.3} ms",
            results["reference"]["p90_ms"].as_f64().unwrap_or(f64::NAN)
        ),
        ratio: None,
        target: "(information)".into(),
        pass: true,
    });
    Ok(())
}

/// The SDK's Python: `IKIGAI_MCP_PYTHON`, else target/mcp-venv (created
/// here as `.ci/run` does, when missing).
fn sdk_python() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("IKIGAI_MCP_PYTHON") {
        return Ok(PathBuf::from(p));
    }
    let venv = crate::root().join("target/mcp-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        let status = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()?;
        ensure!(status.success(), "python3 -m venv failed");
    }
    let status = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", SDK])
        .status()?;
    ensure!(status.success(), "pip install {SDK} failed");
    Ok(python)
}

/// The reference server, installed with npm under the bench data.
fn reference_server(data: &Path) -> Result<PathBuf> {
    let prefix = data.join("mcp-reference");
    let index = prefix.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if !index.exists() {
        std::fs::create_dir_all(&prefix)?;
        eprintln!("installing {REFERENCE} with npm");
        let status = Command::new("npm")
            .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg(REFERENCE)
            .status()
            .context("running npm (Node.js is needed for the reference server)")?;
        ensure!(status.success(), "npm install {REFERENCE} failed");
    }
    Ok(index)
}
