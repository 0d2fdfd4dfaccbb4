//! Streams, by the WHATWG Streams standard: readable streams pull as their queue asks, readers
//! and async iteration read in order, `tee` gives both branches every chunk, writable streams
//! write in order with backpressure, transforms and pipes carry chunks, closes, errors and
//! aborts through.

use crate::{eval, settle, web};

#[test]
fn a_readable_stream_pulls_as_its_queue_asks_and_reads_in_order() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const log = []; let n = 0; \
             const stream = new ReadableStream({ \
               start(c) { log.push('start ' + c.desiredSize); }, \
               pull(c) { n++; log.push('pull ' + c.desiredSize); if (n <= 3) c.enqueue(n); else c.close(); }, \
             }, { highWaterMark: 2 }); \
             await null; await null; \
             const reader = stream.getReader(); const locked = stream.locked; \
             const reads = []; for (;;) { const { value, done } = await reader.read(); if (done) break; reads.push(value); } \
             await reader.closed; reader.releaseLock(); \
             return [log[0], log[1], reads, locked, stream.locked];"
        ),
        r#"["start 2","pull 2",[1,2,3],true,false]"#
    );
}

#[test]
fn async_iteration_from_and_tee() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "async function* gen() { yield 'a'; yield 'b'; } \
             const seen = []; for await (const chunk of ReadableStream.from(gen())) seen.push(chunk); \
             const fromArray = []; for await (const x of ReadableStream.from([1, Promise.resolve(2)])) fromArray.push(x); \
             const [left, right] = ReadableStream.from(['x', 'y']).tee(); \
             const both = []; for await (const x of left) both.push('L' + x); for await (const x of right) both.push('R' + x); \
             return [seen, fromArray, both];"
        ),
        r#"[["a","b"],[1,2],["Lx","Ly","Rx","Ry"]]"#
    );
    // Breaking out of iteration cancels the stream (its source told the reason).
    assert_eq!(
        settle(
            &mut runtime,
            "let reason = 'none'; const s = new ReadableStream({ pull(c) { c.enqueue(1); }, cancel(r) { reason = String(r); } }); \
             for await (const x of s) break; \
             return [reason, s.locked];"
        ),
        r#"["undefined",false]"#
    );
}

#[test]
fn cancel_and_error_reach_the_reader() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "let cancelled; const s = new ReadableStream({ cancel(r) { cancelled = r; } }); \
             await s.cancel('why'); const after = await s.getReader().read(); \
             let c; const e = new ReadableStream({ start(ctl) { c = ctl; } }); const r = e.getReader(); \
             const pending = r.read(); c.error(new TypeError('bad')); \
             let caught; try { await pending; } catch (err) { caught = err.message; } \
             let closedError; try { await r.closed; } catch (err) { closedError = err.message; } \
             return [cancelled, after, caught, closedError, c.desiredSize];"
        ),
        r#"["why",{"done":true},"bad","bad",null]"#
    );
}

#[test]
fn a_writable_stream_writes_in_order_with_backpressure() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const written = []; let closed = false; \
             const ws = new WritableStream({ \
               async write(chunk) { await null; written.push(chunk); }, \
               close() { closed = true; }, \
             }, new CountQueuingStrategy({ highWaterMark: 2 })); \
             const w = ws.getWriter(); const sizes = [w.desiredSize]; \
             w.write('a'); sizes.push(w.desiredSize); w.write('b'); sizes.push(w.desiredSize); w.write('c'); sizes.push(w.desiredSize); \
             await w.ready; await w.close(); \
             return [written, closed, sizes, ws.locked];"
        ),
        r#"[["a","b","c"],true,[2,1,0,-1],true]"#
    );
    assert_eq!(
        settle(
            &mut runtime,
            "let aborted; const ws = new WritableStream({ write() { throw new RangeError('no'); }, abort(r) { aborted = r; } }); \
             const w = ws.getWriter(); let first; try { await w.write(1); } catch (e) { first = e.name; } \
             let second; try { await w.write(2); } catch (e) { second = e.name; } \
             const ws2 = new WritableStream({ abort(r) { aborted = r; } }); await ws2.abort('stop'); \
             return [first, second, aborted];"
        ),
        r#"["RangeError","RangeError","stop"]"#
    );
}

#[test]
fn transforms_and_pipes_carry_chunks_closes_and_aborts() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const upper = new TransformStream({ transform(chunk, c) { c.enqueue(chunk.toUpperCase()); }, flush(c) { c.enqueue('!'); } }); \
             const out = []; for await (const x of ReadableStream.from(['a', 'b']).pipeThrough(upper)) out.push(x); \
             const sink = []; let closed = false; \
             await ReadableStream.from([1, 2, 3]).pipeTo(new WritableStream({ write(x) { sink.push(x); }, close() { closed = true; } })); \
             return [out, sink, closed];"
        ),
        r#"[["A","B","!"],[1,2,3],true]"#
    );
    // An aborted signal stops a pipe: the source is cancelled and the destination aborted with
    // its reason.
    assert_eq!(
        settle(
            &mut runtime,
            "let cancelled, aborted; const controller = new AbortController(); \
             const source = new ReadableStream({ pull(c) { c.enqueue(1); }, cancel(r) { cancelled = r; } }); \
             const dest = new WritableStream({ write() { controller.abort('enough'); }, abort(r) { aborted = r; } }); \
             let rejected; try { await source.pipeTo(dest, { signal: controller.signal }); } catch (e) { rejected = e; } \
             return [rejected, cancelled, aborted];"
        ),
        r#"["enough","enough","enough"]"#
    );
}

#[test]
fn bad_arguments_are_type_errors() {
    let mut runtime = web();
    for (script, class) in [
        ("new ReadableStream(5)", "TypeError"),
        ("new ReadableStream({ pull: 5 })", "TypeError"),
        (
            "new ReadableStream({ type: 'bytes' }, { size() { return 1; } })",
            "RangeError",
        ),
        (
            "new ReadableStream({ type: 'bytes', autoAllocateChunkSize: 0 })",
            "TypeError",
        ),
        ("new ReadableStream({ type: 'nope' })", "TypeError"),
        (
            "new ReadableStream({}, { highWaterMark: -1 })",
            "RangeError",
        ),
        (
            "new ReadableStream().getReader({ mode: 'byob' })",
            "TypeError",
        ),
        ("new ReadableStreamBYOBRequest()", "TypeError"),
        (
            "new ReadableStream({ type: 'bytes', start(c) { c.enqueue(new Uint8Array(0)); } })",
            "TypeError",
        ),
        (
            "((s) => { s.getReader(); return s.getReader(); })(new ReadableStream())",
            "TypeError",
        ),
        ("new ReadableStreamDefaultController()", "TypeError"),
        ("new CountQueuingStrategy()", "TypeError"),
        ("new WritableStream({ type: 'x' })", "RangeError"),
        ("ReadableStream.prototype.getReader.call({})", "TypeError"),
    ] {
        let out = eval(&mut runtime, &format!("return {script};"));
        assert!(
            out.starts_with(&format!("throws {class}")),
            "{script}: {out}"
        );
    }
    assert_eq!(
        eval(
            &mut runtime,
            "return [Object.prototype.toString.call(new ReadableStream()), new ByteLengthQueuingStrategy({ highWaterMark: 8 }).size(new Uint8Array(5)), new CountQueuingStrategy({ highWaterMark: 3 }).highWaterMark];"
        ),
        r#"["[object ReadableStream]",5,3]"#
    );
}

#[test]
fn a_tenant_patching_intrinsics_changes_nothing() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "Array.prototype[Symbol.iterator] = function* () { throw new Error('patched'); }; \
             Array.prototype.push = () => { throw new Error('patched'); }; \
             Array.prototype.shift = () => { throw new Error('patched'); }; \
             const s = new ReadableStream({ start(c) { c.enqueue('a'); c.enqueue('b'); c.close(); } }); \
             const r = s.getReader(); const out = []; \
             for (;;) { const step = await r.read(); if (step.done) break; out[out.length] = step.value; } \
             return out;"
        ),
        r#"["a","b"]"#
    );
}

#[test]
fn text_streams_encode_and_decode_across_chunk_boundaries() {
    let mut runtime = web();
    assert_eq!(
        crate::settle(
            &mut runtime,
            "const bytes = new TextEncoder().encode('a€😀'); \
             const parts = [bytes.slice(0, 2), bytes.slice(2, 5), bytes.slice(5)]; \
             const decoded = []; for await (const s of ReadableStream.from(parts).pipeThrough(new TextDecoderStream())) decoded.push(s); \
             const emoji = '😀'; const split = [emoji[0], emoji[1] + 'b', '\\ud800']; \
             const encoded = []; for await (const b of ReadableStream.from(split).pipeThrough(new TextEncoderStream())) encoded.push([...b]); \
             const d = new TextDecoderStream('utf-16le', { fatal: true }); \
             let bad; try { new TextDecoderStream('nope'); } catch (e) { bad = e.name; } \
             return [decoded.join(''), encoded, d.encoding, d.fatal, d.ignoreBOM, new TextEncoderStream().encoding, bad];"
        ),
        r#"["a€😀",[[240,159,152,128,98],[239,191,189]],"utf-16le",true,false,"utf-8","RangeError"]"#
    );
}

#[test]
fn a_blob_streams_its_bytes_in_chunks() {
    let mut runtime = web();
    assert_eq!(
        crate::settle(
            &mut runtime,
            "const sizes = []; for await (const c of new Blob([new Uint8Array(150000)]).stream()) sizes.push(c.length); \
             const small = []; for await (const c of new Blob(['hi']).stream()) small.push([...c]); \
             let foreign; try { Blob.prototype.stream.call({}); } catch (e) { foreign = e.name; } \
             return [sizes, small, foreign];"
        ),
        r#"[[65536,65536,18928],[[104,105]],"TypeError"]"#
    );
}

/// Byte streams: a BYOB reader's reads fill the reader's own buffer (transferred: the view it
/// gave is detached), `read({ min })` waits for that many elements, the source answers
/// `byobRequest`s, a default reader gets chunks as `Uint8Array`s (auto-allocated when the
/// source asks), and a byte stream's tee gives both branches every byte (a BYOB read takes all
/// the queue holds that fits).
#[test]
fn byte_streams_fill_the_readers_buffers() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "let n = 0; \
             const source = { type: 'bytes', pull(c) { \
               const r = c.byobRequest; \
               if (r) { const v = r.view; v[0] = ++n; v[1] = ++n; r.respond(2); } \
               else c.enqueue(new Uint8Array([++n])); \
               if (n >= 8) c.close(); } }; \
             const reader = new ReadableStream(source).getReader({ mode: 'byob' }); \
             const given = new Uint8Array(4); \
             const first = await reader.read(given); \
             const second = await reader.read(new Uint16Array(1), { min: 1 }); \
             const third = await reader.read(new Uint8Array(4), { min: 4 }); \
             const end = await reader.read(new Uint8Array(2)); \
             return [given.byteLength, [...first.value], first.value.buffer.byteLength, \
               second.value.constructor.name, second.value.length, [...third.value], third.done, \
               end.done, end.value.byteLength];"
        ),
        r#"[0,[1,2],4,"Uint16Array",1,[5,6,7,8],false,true,0]"#
    );
    assert_eq!(
        settle(
            &mut runtime,
            "const auto = new ReadableStream({ type: 'bytes', autoAllocateChunkSize: 16, \
               pull(c) { const v = c.byobRequest.view; v.fill(7, 0, 3); c.byobRequest.respond(3); c.close(); } }); \
             const read = await auto.getReader().read(); \
             const [left, right] = new ReadableStream({ type: 'bytes', start(c) { \
               c.enqueue(new Uint8Array([1, 2, 3])); c.enqueue(new Uint8Array([4])); c.close(); } }).tee(); \
             const all = async (s) => { const out = []; for await (const chunk of s) out.push(...chunk); return out; }; \
             const byob = right.getReader({ mode: 'byob' }); \
             const fromRight = await byob.read(new Uint8Array(8)); \
             return [read.value.constructor.name, [...read.value], await all(left), [...fromRight.value]];"
        ),
        r#"["Uint8Array",[7,7,7],[1,2,3,4],[1,2,3,4]]"#
    );
}
