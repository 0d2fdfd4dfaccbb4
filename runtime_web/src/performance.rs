//! `performance` (`performance.js`): `now()` and `timeOrigin`, coarsened.
//!
//! Both are multiples of [`RESOLUTION_MS`] (100 µs), as browsers without cross-origin
//! isolation coarsen theirs: tenants sharing a process must not get a clock fine enough to
//! time a cache hit (Spectre). workerd goes further and stops the clock during a request;
//! that hides even coarse timing of one's own code, which tenants measuring their handlers
//! want, so the clock here moves, at a resolution that times no cache line.

#![deny(unsafe_code)]

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use runtime_core::{op, Extension, GlobalScript, OpState};

/// The clocks' resolution, in milliseconds.
const RESOLUTION_MS: f64 = 0.1;

/// When the runtime was made: the time origin (its Unix time already coarsened).
struct Origin {
    instant: Instant,
    unix_ms: f64,
}

fn coarsen(ms: f64) -> f64 {
    (ms / RESOLUTION_MS).floor() * RESOLUTION_MS
}

/// `performance.now()`: milliseconds since the time origin.
#[op(fast)]
fn op_web_now(state: &OpState) -> f64 {
    let elapsed = state.borrow::<Origin>().instant.elapsed();
    coarsen(elapsed.as_secs_f64() * 1000.0)
}

/// `performance.timeOrigin`: the time origin, in milliseconds since the Unix epoch.
#[op(fast)]
fn op_web_time_origin(state: &OpState) -> f64 {
    state.borrow::<Origin>().unix_ms
}

/// `performance`, `Performance`.
pub(crate) fn extension() -> Extension {
    Extension::new("web_performance")
        .internal_ops(&[op_web_now::DECL, op_web_time_origin::DECL])
        .global(
            GlobalScript::new("ext:web/performance.js", include_str!("performance.js"))
                .typescript(include_str!("performance.d.ts")),
        )
        .state(|state| {
            let unix_ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |since| since.as_secs_f64() * 1000.0);
            state.put(Origin {
                instant: Instant::now(),
                unix_ms: coarsen(unix_ms),
            });
        })
}
