//! Tenants' hostile values: each a clear JavaScript error or a bounded result, no abort, the
//! memory budget and the deadline hold, nothing crosses runtimes.

use std::time::{Duration, Instant};

use runtime_core::{JsErrorKind, Runtime, RuntimeOptions};

use crate::{eval, web};

fn budgeted(limit: usize) -> Runtime {
    Runtime::new(RuntimeOptions {
        extensions: runtime_web::extensions(runtime_web::Groups::ALL),
        memory_limit: Some(limit),
        ..Default::default()
    })
}

#[test]
fn a_ten_megabyte_url_parses_and_its_error_quotes_a_bounded_part() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const u = new URL('https://h/' + 'a'.repeat(10e6)); return u.pathname.length;"
        ),
        "10000001"
    );
    let error = eval(&mut runtime, "return new URL('x'.repeat(10e6));");
    assert!(
        error.starts_with("throws TypeError: Invalid URL: 'xxx"),
        "{error}"
    );
    assert!(
        error.len() < 400,
        "the message quotes {} bytes",
        error.len()
    );
}

#[test]
fn a_setter_whose_value_throws_leaves_the_url_as_it_was() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const u = new URL('https://h/p'); let threw; try { u.pathname = { toString() { throw new RangeError('no'); } }; } catch (e) { threw = e.message; } try { u.search = Symbol(); } catch (e) { threw += ' ' + e.name; } return [threw, u.href];"),
        r#"["no TypeError","https://h/p"]"#
    );
}

#[test]
fn atob_of_a_hundred_megabytes_decodes_within_the_budget_or_says_so() {
    // Under a budget that holds it: decoded.
    let mut runtime = budgeted(1 << 30);
    assert_eq!(
        eval(&mut runtime, "return atob('QUJD'.repeat(25e6)).length;"),
        "75000000"
    );
    // Under one that does not: the runtime ends as out of memory, the process goes on.
    let mut runtime = budgeted(64 << 20);
    let error = runtime
        .execute_script("<test>", "atob('QUJD'.repeat(25e6)).length")
        .unwrap_err();
    assert_eq!(error.kind, JsErrorKind::OutOfMemory, "{error}");
}

#[test]
fn a_decoder_fed_split_code_points_one_byte_at_a_time_matches_one_decode() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const text = 'aé€😀'.repeat(1000); const bytes = new TextEncoder().encode(text); const d = new TextDecoder('utf-8', { fatal: true }); let out = ''; for (let i = 0; i < bytes.length; i++) out += d.decode(bytes.subarray(i, i + 1), { stream: true }); out += d.decode(); return out === text;"),
        "true"
    );
}

#[test]
fn clones_of_cycles_deep_structures_proxies_and_detached_buffers_are_errors_not_aborts() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const a = []; a.push(a, a); const c = structuredClone(a); return c[0] === c && c[1] === c;"),
        "true"
    );
    // A million levels: V8's serializer checks the stack.
    assert_eq!(
        eval(&mut runtime, "let deep = {}; for (let i = 0; i < 1e6; i++) deep = { deep }; try { structuredClone(deep); return 'cloned'; } catch (e) { return e.name; }"),
        r#""RangeError""#
    );
    assert_eq!(
        eval(
            &mut runtime,
            "try { structuredClone({ p: new Proxy([], {}) }); } catch (e) { return e.name; }"
        ),
        r#""DataCloneError""#
    );
    assert_eq!(
        eval(&mut runtime, "const b = new ArrayBuffer(8); const view = new Uint8Array(b); structuredClone(b, { transfer: [b] }); try { return structuredClone(view).length; } catch (e) { return e.name; }"),
        r#""DataCloneError""#
    );
    // Decoding, encoding and hashing a detached buffer read nothing.
    assert_eq!(
        eval(&mut runtime, "const b = new ArrayBuffer(8); const view = new Uint8Array(b); structuredClone(b, { transfer: [b] }); return [new TextDecoder().decode(view), new TextDecoder('utf-16le').decode(b), new TextEncoder().encodeInto('abc', view).written];"),
        r#"["","",0]"#
    );
}

#[test]
fn random_values_past_the_quota_are_refused_before_any_is_written() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const a = new Uint8Array(1 << 20); try { crypto.getRandomValues(a); } catch (e) { return [e.name, a.every((x) => x === 0)]; }"),
        r#"["QuotaExceededError",true]"#
    );
}

#[test]
fn the_deadline_stops_a_tenant_that_loops_over_the_web_platform() {
    let mut runtime = web();
    let _deadline = runtime
        .termination_handle()
        .terminate_at(Instant::now() + Duration::from_millis(200));
    let error = runtime
        .execute_script("<test>", "for (;;) { new URL('https://h/' + Math.random()).searchParams.sort(); structuredClone({ a: [1, 2] }); atob(btoa('x')); }")
        .unwrap_err();
    assert_eq!(error.kind, JsErrorKind::Terminated, "{error}");
    // The runtime goes on afterwards.
    assert_eq!(
        eval(&mut runtime, "return new URL('a:b').protocol;"),
        r#""a:""#
    );
}

/// Runs `body` in an endless loop under a deadline a few milliseconds off, `rounds` times:
/// whether a termination was ever lost (a watchdog had to stop the loop).
fn deadline_ever_lost(runtime: &mut Runtime, body: &str, rounds: usize) -> bool {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    for _ in 0..rounds {
        let handle = runtime.termination_handle();
        let _deadline = handle.terminate_at(Instant::now() + Duration::from_millis(2));
        let finished = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let finished = finished.clone();
            std::thread::spawn(move || {
                let start = Instant::now();
                while !finished.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(5));
                    if start.elapsed() > Duration::from_secs(30) {
                        handle.terminate();
                        return true;
                    }
                }
                false
            })
        };
        let error = runtime
            .execute_script("<spin>", &format!("for (;;) {{ {body} }}"))
            .unwrap_err();
        finished.store(true, Ordering::SeqCst);
        assert_eq!(error.kind, JsErrorKind::Terminated, "{error}");
        if watchdog.join().unwrap() {
            return true;
        }
    }
    false
}

#[test]
fn no_web_api_loses_a_termination_that_lands_inside_it() {
    let mut runtime = web();
    // Before the fix, V8's deserializer spent the termination, and a clone error thrown while
    // terminating replaced it: the loop ran until the watchdog.
    for body in [
        "structuredClone({ a: [1, 2] });",
        "try { structuredClone(() => 1); } catch {}",
        "try { new URL('https://h/?b=1&a=2').searchParams.sort(); atob(btoa('x')); } catch {}",
        "try { new TextDecoder('utf-16le').decode(new TextEncoder().encode('abc')); } catch {}",
        "try { new EventTarget().dispatchEvent(new Event('x')); AbortSignal.any([new AbortController().signal]); } catch {}",
        "try { new Blob(['a', new Uint8Array(2)]).slice(1); crypto.randomUUID(); } catch {}",
    ] {
        assert!(!deadline_ever_lost(&mut runtime, body, 50), "{body}");
    }
}

#[test]
fn runtimes_share_nothing() {
    let mut first = web();
    let mut second = web();
    // A stream left open in one runtime (its decoder holds half a code point) is no decoder
    // of the other's.
    eval(
        &mut first,
        "globalThis.open = new TextDecoder(); open.decode(Uint8Array.of(0xf0, 0x9f), { stream: true }); return 0;",
    );
    eval(
        &mut first,
        "URL.prototype.evil = 1; globalThis.TextDecoder = null; return 0;",
    );
    assert_eq!(
        eval(&mut second, "const d = new TextDecoder(); d.decode(new Uint8Array([0xe2]), { stream: true }); return [URL.prototype.evil === undefined, d.decode(new Uint8Array([0x82, 0xac]))];"),
        r#"[true,"€"]"#
    );
}

#[test]
fn abort_signal_any_of_a_hundred_thousand_signals_is_linear_and_keeps_nothing() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const controllers = []; for (let i = 0; i < 1e5; i++) controllers.push(new AbortController()); \
            const any = AbortSignal.any(controllers.map((c) => c.signal)); const again = AbortSignal.any([any, ...controllers.map((c) => c.signal)]); \
            controllers[77777].abort('one'); return [any.reason, again.reason];"),
        r#"["one","one"]"#
    );
    // Dependents made and dropped in a loop do not pile up on a long-lived source.
    assert_eq!(
        eval(&mut runtime, "const source = new AbortController(); for (let i = 0; i < 2e5; i++) AbortSignal.any([source.signal]); source.abort(); return source.signal.aborted;"),
        "true"
    );
}

#[test]
fn a_listener_that_dispatches_to_itself_ends_as_a_range_error_not_a_crash() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const t = new EventTarget(); let reported = 0; addEventListener('error', (e) => { reported++; e.preventDefault(); }); t.addEventListener('x', () => t.dispatchEvent(new Event('x'))); t.dispatchEvent(new Event('x')); return reported > 0;"),
        "true"
    );
    // The runtime goes on.
    assert_eq!(
        eval(
            &mut runtime,
            "return new EventTarget().dispatchEvent(new Event('y'));"
        ),
        "true"
    );
}

#[test]
fn a_blob_of_a_million_tiny_parts_is_made_in_one_pass() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "const parts = []; for (let i = 0; i < 1e6; i++) parts.push('a'); const b = new Blob(parts); return [b.size, b.slice(5, 10).size];"),
        "[1000000,5]"
    );
}

// ---- streams and bodies ----------------------------------------------------------------------

/// A gigabyte streamed into a body under a 64 MB budget: the runtime ends as out of memory
/// (its buffers and heap together), the process goes on.
#[test]
fn a_gigabyte_body_under_a_small_budget_is_out_of_memory_not_an_abort() {
    let mut runtime = budgeted(64 << 20);
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Stopped in the script's own microtasks or in a turn of the loop after, or a buffer the
    // budget refused (a RangeError the body's read rejects with).
    let stopped = runtime
        .execute_script(
            "<test>",
            "let n = 0; globalThis.out = 'pending'; \
             new Response(new ReadableStream({ pull(c) { c.enqueue(new Uint8Array(1 << 20)); if (++n === 1024) c.close(); } })) \
               .arrayBuffer().then((b) => { out = b.byteLength; }, (e) => { out = e.name; });",
        )
        .err()
        .or_else(|| tokio.block_on(runtime.run_event_loop()).err());
    match stopped {
        Some(error) => assert_eq!(error.kind, JsErrorKind::OutOfMemory, "{error}"),
        None => assert_eq!(eval(&mut runtime, "return out;"), r#""RangeError""#),
    }
    assert_eq!(eval(&mut runtime, "return 1 + 1;"), "2");
}

/// A source that never ends, read by nobody: backpressure holds (pull is called until the
/// queue reaches its high-water mark, no further); one whose pull throws or re-enters errors
/// the stream.
#[test]
fn backpressure_holds_and_a_bad_pull_errors_its_stream() {
    let mut runtime = web();
    assert_eq!(
        crate::settle(
            &mut runtime,
            "let pulls = 0; const s = new ReadableStream({ pull(c) { pulls++; c.enqueue(1); } }, { highWaterMark: 4 }); \
             for (let i = 0; i < 20; i++) await null; \
             const throwing = new ReadableStream({ pull() { throw new RangeError('pull'); } }); \
             let thrown; try { await throwing.getReader().read(); } catch (e) { thrown = e.name; } \
             let reentered = 0; const again = new ReadableStream({ pull(c) { reentered++; if (reentered < 1e4) c.enqueue(reentered); else c.close(); } }); \
             let read = 0; for await (const _ of again) read++; \
             return [pulls, thrown, read, s.locked];"
        ),
        r#"[4,"RangeError",9999,false]"#
    );
}

/// A TransformStream chain 100,000 deep carries a chunk through, or ends with a RangeError
/// (the stack), never an abort; headers of 100,000 pairs are linear; a body of a detached
/// buffer is a TypeError.
#[test]
fn deep_chains_many_headers_and_detached_bodies_are_bounded() {
    let mut runtime = web();
    let out = crate::settle(
        &mut runtime,
        "let s = ReadableStream.from(['x']); for (let i = 0; i < 1e5; i++) s = s.pipeThrough(new TransformStream()); \
         try { const r = s.getReader(); return (await r.read()).value; } catch (e) { return e.name; }",
    );
    assert!(out == r#""x""# || out.contains("RangeError"), "{out}");
    let started = Instant::now();
    assert_eq!(
        eval(
            &mut runtime,
            "const pairs = []; for (let i = 0; i < 1e5; i++) pairs.push(['x-' + i, 'v' + i]); \
             const h = new Headers(pairs); return [h.get('x-99999'), [...h].length];"
        ),
        r#"["v99999",100000]"#
    );
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(
        eval(
            &mut runtime,
            "const b = new ArrayBuffer(8); structuredClone(b, { transfer: [b] }); \
             const v = new Uint8Array(new ArrayBuffer(4)); structuredClone(v.buffer, { transfer: [v.buffer] }); \
             const out = []; for (const body of [b, v]) { try { new Response(body); out.push('made'); } catch (e) { out.push(e.name); } } return out;"
        ),
        r#"["TypeError","TypeError"]"#
    );
}

// ---- compression -----------------------------------------------------------------------------

/// A raw deflate stream: `SEED` (a stored block of 32 KiB of zeros, so what follows may
/// reach back a whole window), each repeat of `PIECE` a mebibyte more zeros (a non-final
/// block at a byte boundary: 14 bytes, 1,016 zeros, 6 bytes), then `END`.
const BOMB_PIECE_HEAD: &str = "ecc1210100000080a0ffaf1d6105";
const BOMB_PIECE_ZEROS: usize = 1016;
const BOMB_PIECE_TAIL: &str = "ae000000ffff";
const BOMB_END: &str = "0300";

/// JavaScript that makes the bomb's bytes and a `DecompressionStream` fed `repeats` pieces.
fn bomb_script(repeats: usize, then: &str) -> String {
    format!(
        "const hex = (s) => s.match(/../g).map((b) => parseInt(b, 16)); \
         const seed = new Uint8Array(5 + 32768); seed.set([0, 0, 0x80, 0xff, 0x7f]); \
         const piece = new Uint8Array([...hex('{BOMB_PIECE_HEAD}'), ...new Array({BOMB_PIECE_ZEROS}).fill(0), ...hex('{BOMB_PIECE_TAIL}')]); \
         const end = new Uint8Array(hex('{BOMB_END}')); \
         const ds = new DecompressionStream('deflate-raw'); \
         const writer = ds.writable.getWriter(); \
         (async () => {{ await writer.write(seed); for (let i = 0; i < {repeats}; i++) await writer.write(piece); \
           await writer.write(end); await writer.close(); }})().catch(() => {{}}); \
         globalThis.out = 'pending'; {then}"
    )
}

/// Runs `script` (which sets `globalThis.out`) and its event loop under a 64 MB budget, and
/// asserts the runtime ran out of memory: stopped, or `out` a `RangeError`'s name. Returns the
/// tokio runtime it ran on.
fn runs_out_of_memory(script: &str) -> tokio::runtime::Runtime {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut runtime = budgeted(64 << 20);
    let stopped = runtime
        .execute_script("<test>", script)
        .err()
        .or_else(|| tokio.block_on(runtime.run_event_loop()).err());
    match stopped {
        Some(error) => assert_eq!(error.kind, JsErrorKind::OutOfMemory, "{error}"),
        None => assert_eq!(eval(&mut runtime, "return out;"), r#""RangeError""#),
    }
    tokio
}

/// A kilobyte that inflates to a gigabyte, read by a reader that keeps every chunk, under a
/// 64 MB budget: out of memory for the runtime, the process goes on. Read and dropped, a
/// quarter of it streams through the same budget.
#[test]
fn a_decompression_bomb_holds_to_the_budget() {
    let tokio = runs_out_of_memory(&bomb_script(
        1024,
        "const kept = []; (async () => { for await (const c of ds.readable) kept.push(c); out = kept.length; })() \
           .catch((e) => { out = e.name; });",
    ));

    let mut runtime = budgeted(64 << 20);
    runtime
        .execute_script(
            "<test>",
            &bomb_script(
                256,
                "let total = 0; (async () => { for await (const c of ds.readable) total += c.length; out = total; })() \
                   .catch((e) => { out = e.name; });",
            ),
        )
        .unwrap();
    tokio.block_on(runtime.run_event_loop()).unwrap();
    assert_eq!(
        eval(&mut runtime, "return out;"),
        (32768 + (256u64 << 20)).to_string()
    );
}

/// Codecs are counted in the budget: a tenant that keeps making them is out of memory, not
/// the host; one that abandons them (eighteen gigabytes of codec state in all) has them
/// collected and goes on.
#[test]
fn codecs_kept_are_counted_and_codecs_abandoned_are_freed() {
    let mut runtime = budgeted(64 << 20);
    let error = runtime
        .execute_script(
            "<test>",
            "const kept = []; for (;;) kept.push(new CompressionStream('gzip'));",
        )
        .unwrap_err();
    assert_eq!(error.kind, JsErrorKind::OutOfMemory, "{error}");

    // (A stream is reachable until its start's reactions ran: the loop lets them run.)
    let mut runtime = budgeted(64 << 20);
    assert_eq!(
        crate::settle(
            &mut runtime,
            "for (let i = 0; i < 50000; i++) { new CompressionStream('deflate'); new DecompressionStream('gzip'); \
               if (i % 64 === 0) await null; } return 'done';"
        ),
        r#""done""#
    );
}

/// A brotli stream's first bytes declare its window, up to 16 MiB, which its decoder then
/// allocates: counted in the budget as the decoder allocates it. Decoders kept, each given
/// sixteen bytes that declare the largest window, run a 64 MB budget out of memory, not the
/// host; a few, dropped in turn, do not.
#[test]
fn brotli_windows_are_counted_as_decoders_allocate_them() {
    // The first bytes of a stream of Google's encoder with a 16 MiB window (and a first
    // meta-block longer than that).
    let widest = "afffff0000a8aaaaaafe976dcd58b63d";
    let feed = |count: usize, keep: bool| {
        format!(
            "const hex = (s) => new Uint8Array(s.match(/../g).map((b) => parseInt(b, 16))); \
             const kept = []; \
             for (let i = 0; i < {count}; i++) {{ \
               const ds = new DecompressionStream('brotli'); \
               const writer = ds.writable.getWriter(); \
               writer.write(hex('{widest}')).catch(() => {{}}); \
               ds.readable.getReader().read().catch(() => {{}}); \
               await new Promise((resolve) => setTimeout(resolve, 0)); \
               if ({keep}) kept.push(ds); else writer.abort().catch(() => {{}}); \
             }} \
             return 'done';"
        )
    };
    runs_out_of_memory(&format!(
        "globalThis.out = 'pending'; (async () => {{ {} }})().then((v) => {{ out = v; }}, (e) => {{ out = e.name; }});",
        feed(64, true)
    ));

    let mut runtime = budgeted(64 << 20);
    assert_eq!(crate::settle(&mut runtime, &feed(64, false)), r#""done""#);
}

/// Byte streams given what cannot be: a chunk size past any memory, a buffer that cannot be
/// transferred (a WebAssembly memory's), a view of shared memory: each a rejection or a throw
/// of the stream's, under a budget, the process untouched.
#[test]
fn byte_streams_refuse_buffers_they_cannot_take() {
    let mut runtime = budgeted(64 << 20);
    assert_eq!(
        crate::settle(
            &mut runtime,
            "const outcome = (p) => p.then(() => 'ok', (e) => e.name); \
             const huge = new ReadableStream({ type: 'bytes', autoAllocateChunkSize: 2 ** 53 - 1, pull() {} }); \
             const memory = new WebAssembly.Memory({ initial: 1 }); \
             const wasm = new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' }); \
             let enqueued; new ReadableStream({ type: 'bytes', start(c) { \
               try { c.enqueue(new Uint8Array(memory.buffer, 0, 8)); enqueued = 'ok'; } catch (e) { enqueued = e.name; } } }); \
             const shared = new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' }); \
             return [await outcome(huge.getReader().read()), await outcome(wasm.read(new Uint8Array(memory.buffer, 0, 8))), \
               enqueued, await outcome(shared.read(new Uint8Array(new SharedArrayBuffer(8))))];"
        ),
        r#"["RangeError","TypeError","TypeError","TypeError"]"#
    );
}
