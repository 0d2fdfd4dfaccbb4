//! What `cargo xtask bench-http` writes: the table with the ratios to the floor and deno_core's
//! reference, the JSON, and the SVG of CPU per request.

use std::path::Path;

use super::{Cell, KV_SECONDS, ROUTES};

/// deno_core's ratios to the floor from WORKLOAD.md's table: (route, c) → (RPS, p99, CPU).
pub(super) fn reference_ratios(path: &Path) -> Vec<(String, u32, f64, f64, f64)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if cells.len() < 9 || !ROUTES.contains(&cells[1]) {
                return None;
            }
            let number = |cell: &str| cell.split_whitespace().next()?.parse::<f64>().ok();
            Some((
                cells[1].to_owned(),
                cells[2].parse().ok()?,
                number(cells[5])?,
                number(cells[6])?,
                number(cells[7])?,
            ))
        })
        .collect()
}

pub(super) fn floor_of<'a>(cells: &'a [Cell], cell: &Cell) -> Option<&'a Cell> {
    cells
        .iter()
        .find(|c| c.server == "floor" && c.route == cell.route && c.concurrency == cell.concurrency)
}

pub(super) fn table(
    cells: &[Cell],
    reference: &[(String, u32, f64, f64, f64)],
    workers: usize,
) -> String {
    let alone_of = |cell: &Cell| {
        cells.iter().find(|c| {
            c.server == "alone" && c.route == cell.route && c.concurrency == cell.concurrency
        })
    };
    let any_alone = cells.iter().any(|cell| cell.server == "alone");
    // The standard handler on opwire, and the platforms that serve it beside (`--platforms`).
    let standard: Vec<(&str, &str)> = [
        ("fetch", "standard handler"),
        ("deno", "deno serve"),
        ("bun", "Bun.serve"),
        ("workerd", "workerd"),
    ]
    .into_iter()
    .filter(|(server, _)| cells.iter().any(|cell| cell.server == *server))
    .collect();
    let standard_header: String = standard
        .iter()
        .map(|(_, label)| format!(" {label}: RPS, p99, CPU ratios (µs) |"))
        .collect();
    let standard_rule = "---|".repeat(standard.len());
    let mut out = format!(
        "workers: {workers}\n\n| route | c | opwire RPS | floor RPS | RPS ratio | p99 ratio | CPU/request ratio (opwire µs / floor µs) | of the 5 ms ceiling: opwire, floor | deno_core: RPS, p99, CPU ratios |{standard_header}{}\n|---|---|---:|---:|---:|---:|---:|---:|---|{standard_rule}{}\n",
        if any_alone {
            " JS alone: RPS ratio, CPU/request ratio (µs) | op layer's share of the CPU over the floor |"
        } else {
            ""
        },
        if any_alone { "---:|---:|" } else { "" },
    );
    for cell in cells.iter().filter(|cell| cell.server == "js") {
        let Some(floor) = floor_of(cells, cell) else {
            continue;
        };
        let deno = reference
            .iter()
            .find(|(route, c, ..)| route == cell.route && *c == cell.concurrency)
            .map_or("—".to_owned(), |(_, _, rps, p99, cpu)| {
                format!("{rps:.2}, {p99:.2}, {cpu:.2}")
            });
        // The kv ceiling: every connection waits 5 ms per request (per worker's share).
        let ceiling = if cell.route == "kv" {
            let most = f64::from(cell.concurrency) / KV_SECONDS;
            format!("{:.2}, {:.2}", cell.rps / most, floor.rps / most)
        } else {
            "—".to_owned()
        };
        // The op layer's share: what the real ops cost over their JavaScript stand-ins, of
        // what the JS server costs over the floor.
        let alone = alone_of(cell).map_or(String::new(), |alone| {
            format!(
                " {:.2}, {:.2} ({:.1}) | {:.2} |",
                alone.rps / floor.rps,
                alone.cpu_us_per_request / floor.cpu_us_per_request,
                alone.cpu_us_per_request,
                (cell.cpu_us_per_request - alone.cpu_us_per_request)
                    / (cell.cpu_us_per_request - floor.cpu_us_per_request),
            )
        });
        // Version 3's standard fetch handler, on opwire and on each platform.
        let standard: String = standard
            .iter()
            .map(|(server, _)| {
                let other = cells.iter().find(|c| {
                    c.server == *server
                        && c.route == cell.route
                        && c.concurrency == cell.concurrency
                });
                other.map_or(" — |".to_owned(), |other| {
                    format!(
                        " {:.2}, {:.2}, {:.2} ({:.1}) |",
                        other.rps / floor.rps,
                        other.p99_ms / floor.p99_ms,
                        other.cpu_us_per_request / floor.cpu_us_per_request,
                        other.cpu_us_per_request,
                    )
                })
            })
            .collect();
        out.push_str(&format!(
            "| {} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} ({:.1} / {:.1}) | {ceiling} | {deno} |{standard}{alone}\n",
            cell.route,
            cell.concurrency,
            cell.rps,
            floor.rps,
            cell.rps / floor.rps,
            cell.p99_ms / floor.p99_ms,
            cell.cpu_us_per_request / floor.cpu_us_per_request,
            cell.cpu_us_per_request,
            floor.cpu_us_per_request,
        ));
    }
    out
}

pub(super) fn json(cells: &[Cell], quick: bool, runs: usize, workers: usize) -> String {
    let rows: Vec<serde_json::Value> = cells
        .iter()
        .map(|cell| {
            serde_json::json!({
                "server": cell.server,
                "route": cell.route,
                "concurrency": cell.concurrency,
                "rps": cell.rps,
                "p50_ms": cell.p50_ms,
                "p99_ms": cell.p99_ms,
                "responses": cell.responses,
                "errors": cell.errors,
                "cpu_us_per_request": cell.cpu_us_per_request,
            })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({
        "mode": if quick { "quick" } else { "full" },
        "runs_per_cell": runs,
        "workers": workers,
        "cells": rows,
    }))
    .expect("JSON")
}

/// Bars of the CPU-per-request ratio to the floor, opwire's beside deno's reference.
pub(super) fn svg(cells: &[Cell], reference: &[(String, u32, f64, f64, f64)]) -> String {
    let js: Vec<&Cell> = cells.iter().filter(|cell| cell.server == "js").collect();
    let width = 120 * js.len() + 80;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"300\" font-family=\"sans-serif\" font-size=\"11\">\n<text x=\"10\" y=\"16\">CPU per request, ratio to the Rust floor (1.0 = the floor); opwire in blue, deno_core 0.413 (WORKLOAD.md) in grey</text>\n<line x1=\"40\" y1=\"240\" x2=\"{width}\" y2=\"240\" stroke=\"black\"/>\n"
    );
    let scale = 100.0; // px per 1.0
    for (index, cell) in js.iter().enumerate() {
        let x = 60 + index * 120;
        let ratio = floor_of(cells, cell).map_or(0.0, |floor| {
            cell.cpu_us_per_request / floor.cpu_us_per_request
        });
        let deno = reference
            .iter()
            .find(|(route, c, ..)| route == cell.route && *c == cell.concurrency)
            .map_or(0.0, |(_, _, _, _, cpu)| *cpu);
        for (offset, value, color) in [(0, ratio, "#3b6fd4"), (40, deno, "#aaaaaa")] {
            let height = value * scale;
            out.push_str(&format!(
                "<rect x=\"{}\" y=\"{:.1}\" width=\"36\" height=\"{height:.1}\" fill=\"{color}\"/><text x=\"{}\" y=\"{:.1}\">{value:.2}</text>\n",
                x + offset,
                240.0 - height,
                x + offset,
                235.0 - height,
            ));
        }
        out.push_str(&format!(
            "<text x=\"{x}\" y=\"256\">{} c={}</text>\n",
            cell.route, cell.concurrency
        ));
    }
    out.push_str(&format!(
        "<line x1=\"40\" y1=\"{:.1}\" x2=\"{width}\" y2=\"{:.1}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n</svg>\n",
        240.0 - scale,
        240.0 - scale
    ));
    out
}
