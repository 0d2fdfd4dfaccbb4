//! The results: `results.json` (a fixed shape other tools read), the table on stdout, and a
//! bar chart as SVG.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// `results.json`.
#[derive(Serialize, Deserialize)]
pub struct Results {
    /// The V8 version measured.
    pub v8: String,
    /// One entry per bench that ran, in run order.
    pub results: Vec<BenchResult>,
}

/// One bench's figures, all per op call.
#[derive(Serialize, Deserialize, Clone)]
pub struct BenchResult {
    pub name: String,
    /// Median over the samples.
    pub ns_per_call: f64,
    pub ns_per_call_min: f64,
    pub ns_per_call_max: f64,
    pub allocs_per_call: f64,
    pub bytes_per_call: f64,
    /// `fast`, `slow`, `mixed`, or `n/a` for benches without an op.
    pub path: String,
    /// Op calls measured.
    pub calls: u64,
}

impl BenchResult {
    pub fn from_samples(
        name: &str,
        mut samples: Vec<f64>,
        allocs: u64,
        bytes: u64,
        calls: u64,
        path: &str,
    ) -> Self {
        samples.sort_by(f64::total_cmp);
        let median = samples[samples.len() / 2];
        Self {
            name: name.to_owned(),
            ns_per_call: round(median),
            ns_per_call_min: round(samples[0]),
            ns_per_call_max: round(samples[samples.len() - 1]),
            allocs_per_call: round(allocs as f64 / calls as f64),
            bytes_per_call: round(bytes as f64 / calls as f64),
            path: path.to_owned(),
            calls,
        }
    }
}

/// Three decimals: enough for sub-ns differences, stable in diffs.
fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

impl Results {
    /// Reads a previous `results.json` or baseline; `None` if missing or unreadable.
    pub fn load(path: &Path) -> Option<Results> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    }

    pub fn save(&self, path: &Path) {
        let json = serde_json::to_string_pretty(self).expect("results serialize");
        std::fs::write(path, json + "\n")
            .unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
    }
}

/// The table printed at the end of a run.
pub fn table(results: &Results, previous: Option<&Results>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "V8 {}", results.v8);
    let _ = writeln!(
        out,
        "{:<34} {:>10} {:>21} {:>11} {:>10} {:>6} {:>8}",
        "bench", "ns/call", "min..max", "allocs/call", "bytes/call", "path", "Δ%"
    );
    for result in &results.results {
        let delta = previous
            .and_then(|previous| previous.results.iter().find(|old| old.name == result.name))
            .filter(|old| old.ns_per_call > 0.0)
            .map_or("-".to_owned(), |old| {
                format!(
                    "{:+.1}",
                    (result.ns_per_call / old.ns_per_call - 1.0) * 100.0
                )
            });
        let spread = format!(
            "{:.2}..{:.2}",
            result.ns_per_call_min, result.ns_per_call_max
        );
        let _ = writeln!(
            out,
            "{:<34} {:>10.2} {:>21} {:>11.3} {:>10.1} {:>6} {:>8}",
            result.name,
            result.ns_per_call,
            spread,
            result.allocs_per_call,
            result.bytes_per_call,
            result.path,
            delta
        );
    }
    out
}

/// A horizontal bar chart of ns/call on a log scale, one bar per bench.
pub fn svg(results: &Results) -> String {
    const LABEL_WIDTH: f64 = 260.0;
    const BAR_AREA: f64 = 560.0;
    const ROW: f64 = 24.0;
    const TOP: f64 = 48.0;
    let values: Vec<f64> = results
        .results
        .iter()
        .map(|r| r.ns_per_call.max(0.01))
        .collect();
    let low = values
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .log10()
        .floor();
    let high = values
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .log10()
        .ceil()
        .max(low + 1.0);
    let x = |value: f64| LABEL_WIDTH + (value.max(0.01).log10() - low) / (high - low) * BAR_AREA;
    let height = TOP + ROW * results.results.len() as f64 + 30.0;
    let width = LABEL_WIDTH + BAR_AREA + 120.0;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">bench-ops: ns per op call (log scale), V8 {}</text>"#,
        escape(&results.v8)
    );
    let mut decade = low;
    while decade <= high {
        let gx = x(10f64.powf(decade));
        let _ = writeln!(
            svg,
            r##"<line x1="{gx:.1}" y1="{}" x2="{gx:.1}" y2="{}" stroke="#ddd"/><text x="{gx:.1}" y="{}" text-anchor="middle" fill="#666">{}</text>"##,
            TOP - 8.0,
            height - 24.0,
            height - 8.0,
            format_ns(10f64.powf(decade))
        );
        decade += 1.0;
    }
    for (row, result) in results.results.iter().enumerate() {
        let y = TOP + row as f64 * ROW;
        let color = match result.path.as_str() {
            "fast" => "#2a9d8f",
            "slow" => "#e76f51",
            "mixed" => "#e9c46a",
            _ => "#8d99ae",
        };
        let bar_end = x(result.ns_per_call);
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LABEL_WIDTH - 8.0,
            y + 15.0,
            escape(&result.name)
        );
        let _ = writeln!(
            svg,
            r#"<rect x="{LABEL_WIDTH}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}"><title>{}: {} ns/call, {} allocs/call, path {}</title></rect>"#,
            y + 3.0,
            (bar_end - LABEL_WIDTH).max(1.0),
            ROW - 6.0,
            escape(&result.name),
            result.ns_per_call,
            result.allocs_per_call,
            escape(&result.path)
        );
        let path = if result.path == "n/a" {
            String::new()
        } else {
            format!(" ({})", escape(&result.path))
        };
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{}{path}</text>"#,
            bar_end + 6.0,
            y + 15.0,
            format_ns(result.ns_per_call),
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn format_ns(ns: f64) -> String {
    if ns >= 1_000_000.0 {
        format!("{:.1} ms", ns / 1_000_000.0)
    } else if ns >= 1000.0 {
        format!("{:.1} µs", ns / 1000.0)
    } else if ns >= 10.0 {
        format!("{ns:.0} ns")
    } else {
        format!("{ns:.2} ns")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Results {
        Results {
            v8: "15.2.124.1-rusty".to_owned(),
            results: vec![
                BenchResult::from_samples("op_string", vec![5.6, 4.9, 5.1], 0, 0, 3000, "fast"),
                BenchResult::from_samples(
                    "op_string_owned",
                    vec![30.0, 31.0, 29.0],
                    3000,
                    225000,
                    3000,
                    "slow",
                ),
            ],
        }
    }

    #[test]
    fn results_json_has_the_agreed_shape() {
        let json: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&sample()).unwrap()).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["results", "v8"]);
        let first = &json["results"][0];
        assert_eq!(
            first,
            &serde_json::json!({"name": "op_string", "ns_per_call": 5.1, "ns_per_call_min": 4.9,
                "ns_per_call_max": 5.6, "allocs_per_call": 0.0, "bytes_per_call": 0.0,
                "path": "fast", "calls": 3000})
        );
        assert_eq!(json["results"][1]["allocs_per_call"], 1.0);
        assert_eq!(json["results"][1]["bytes_per_call"], 75.0);
    }

    #[test]
    fn table_shows_the_change_against_a_previous_run() {
        let mut previous = sample();
        previous.results[0].ns_per_call = 10.2;
        let table = table(&sample(), Some(&previous));
        let line = table
            .lines()
            .find(|line| line.starts_with("op_string "))
            .unwrap();
        assert!(line.ends_with("-50.0"), "{line}");
        let line = table
            .lines()
            .find(|line| line.starts_with("op_string_owned"))
            .unwrap();
        assert!(line.ends_with("+0.0"), "{line}");
    }

    #[test]
    fn chart_has_a_labelled_bar_per_bench() {
        let svg = svg(&sample());
        assert_eq!(svg.matches("<rect x=").count(), 2);
        assert!(svg.contains(">op_string_owned</text>"));
        assert!(svg.ends_with("</svg>\n"));
    }
}
