//! `Request` and `Response`, by the Fetch standard: every body kind reads back, a body reads
//! once, `clone` tees, statuses and methods are checked, `Response.json`, `error` and
//! `redirect`, and a request made from a request takes its body (its headers replaced by
//! init's, with no Content-Type added back).

use std::cell::RefCell;
use std::rc::Rc;

use runtime_web::transport::{self, FetchTransport, Fetched, IncomingResponse, OutgoingRequest};

use crate::{eval, settle, web};

/// A runtime of every group whose `fetch()` goes through `transport`.
fn granted(transport: impl FetchTransport + 'static) -> runtime_core::Runtime {
    let mut extensions = runtime_web::extensions(runtime_web::Groups::ALL);
    extensions.push(transport::grant(Rc::new(transport)));
    runtime_core::Runtime::new(runtime_core::RuntimeOptions {
        extensions,
        ..Default::default()
    })
}

#[test]
fn every_body_kind_reads_back_once() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const kinds = ['héllo', new TextEncoder().encode('bytes'), new Uint16Array([0x6968]).buffer, new Blob(['blob'], { type: 'Text/X' }), new URLSearchParams('a=1&b=2'), ReadableStream.from([new Uint8Array([0x73, 0x74]), new Uint8Array([0x72])]), null]; \
             const out = []; \
             for (const body of kinds) { const r = new Response(body); out.push([r.headers.get('content-type'), await r.text(), r.bodyUsed]); } \
             return out;"
        ),
        r#"[["text/plain;charset=UTF-8","héllo",true],[null,"bytes",true],[null,"hi",true],["text/x","blob",true],["application/x-www-form-urlencoded;charset=UTF-8","a=1&b=2",true],[null,"str",true],[null,"",false]]"#
    );
    assert_eq!(
        settle(
            &mut runtime,
            "const r = new Response('{\"a\":[1]}'); const value = await r.json(); \
             let again; try { await r.text(); } catch (e) { again = e.name; } \
             const b = await new Response('xyz', { headers: { 'content-type': 'A/B' } }).blob(); \
             const ab = await new Response(new Uint8Array([1, 2, 3]).subarray(1)).arrayBuffer(); \
             const bytes = await new Response('é').bytes(); \
             return [value, again, b.type, b.size, ab.byteLength, [...bytes], Object.prototype.toString.call(bytes)];"
        ),
        r#"[{"a":[1]},"TypeError","a/b",3,2,[195,169],"[object Uint8Array]"]"#
    );
}

#[test]
fn a_body_is_a_stream_when_asked_and_clone_tees_it() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const r = new Response('abc'); const first = r.body; const same = first === r.body; \
             const copy = r.clone(); const teed = r.body !== first && first.locked; \
             const chunks = []; for await (const chunk of r.body) chunks.push(new TextDecoder().decode(chunk)); \
             const copied = await copy.text(); \
             let cloneUsed; try { r.clone(); } catch (e) { cloneUsed = e.name; } \
             return [same, teed, chunks, copied, r.bodyUsed, copy.bodyUsed, cloneUsed, new Response().body];"
        ),
        r#"[true,true,["abc"],"abc",true,true,"TypeError",null]"#
    );
}

#[test]
fn responses_check_their_status_and_make_json_errors_and_redirects() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const r = new Response(null, { status: 204, statusText: 'No Content', headers: [['x-a', '1']] }); \
             const j = Response.json({ a: 1 }, { status: 201 }); const e = Response.error(); const d = Response.redirect('https://h/p', 301); \
             let frozen; try { e.headers.set('a', 'b'); } catch (err) { frozen = err.name; } \
             return [r.status, r.statusText, r.ok, r.type, r.url, r.redirected, r.headers.get('x-a'), \
                     j.status, j.headers.get('content-type'), e.type, e.status, d.status, d.headers.get('location'), frozen];"
        ),
        r#"[204,"No Content",true,"default","",false,"1",201,"application/json","error",0,301,"https://h/p","TypeError"]"#
    );
    for (script, class) in [
        ("new Response('x', { status: 204 })", "TypeError"),
        ("new Response(null, { status: 199 })", "RangeError"),
        ("new Response(null, { status: 600 })", "RangeError"),
        ("new Response(null, { statusText: 'a\\nb' })", "TypeError"),
        ("Response.redirect('https://h/', 200)", "RangeError"),
        ("Response.redirect('not a url')", "TypeError"),
        ("Response.json(undefined)", "TypeError"),
        (
            "new Response(ReadableStream.from([]).getReader() && undefined, { status: 1000 })",
            "RangeError",
        ),
    ] {
        let out = eval(&mut runtime, &format!("return {script};"));
        assert!(
            out.starts_with(&format!("throws {class}")),
            "{script}: {out}"
        );
    }
}

#[test]
fn requests_normalize_methods_and_take_a_requests_body() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const r = new Request('https://h/a#frag', { method: 'post', body: 'hi', headers: { 'X-A': '1' } }); \
             const moved = new Request(r, { headers: { 'x-b': '2' } }); \
             const c = moved.clone(); \
             return [r.method, r.url, r.bodyUsed, moved.method, [...moved.headers], await moved.text(), await c.text(), \
                     new Request('https://h/', { method: 'patch' }).method, new Request('https://h/').mode, \
                     new Request('https://h/').signal.aborted, Object.prototype.toString.call(r)];"
        ),
        r#"["POST","https://h/a#frag",true,"POST",[["x-b","2"]],"hi","hi","patch","cors",false,"[object Request]"]"#
    );
    for (script, class) in [
        ("new Request('/relative')", "TypeError"),
        ("new Request('https://u:p@h/')", "TypeError"),
        (
            "new Request('https://h/', { method: 'CONNECT' })",
            "TypeError",
        ),
        (
            "new Request('https://h/', { method: 'bad method' })",
            "TypeError",
        ),
        ("new Request('https://h/', { body: 'x' })", "TypeError"),
        (
            "new Request('https://h/', { method: 'HEAD', body: 'x' })",
            "TypeError",
        ),
        (
            "new Request('https://h/', { mode: 'navigate' })",
            "TypeError",
        ),
        ("new Request('https://h/', { signal: {} })", "TypeError"),
        (
            "new Request('https://h/', { method: 'POST', body: new ReadableStream() })",
            "TypeError",
        ),
        ("new Request()", "TypeError"),
    ] {
        let out = eval(&mut runtime, &format!("return {script};"));
        assert!(
            out.starts_with(&format!("throws {class}")),
            "{script}: {out}"
        );
    }
    // An aborted signal is followed by the request's own.
    assert_eq!(
        eval(
            &mut runtime,
            "const c = new AbortController(); const r = new Request('https://h/', { signal: c.signal }); \
             const before = r.signal.aborted; c.abort('why'); return [before, r.signal.aborted, r.signal.reason];"
        ),
        r#"[false,true,"why"]"#
    );
}

/// A relative URL is an error, unless the host gives a global `location` (as deno's
/// `--location` does); then it resolves against it.
#[test]
fn relative_urls_resolve_against_a_given_location_only() {
    let mut runtime = web();
    assert!(eval(&mut runtime, "return new Request('/a').url;").starts_with("throws TypeError"));
    assert_eq!(
        eval(
            &mut runtime,
            "globalThis.location = { href: 'https://h/base/' }; \
             return [new Request('a?b').url, Response.redirect('/r').headers.get('location')];"
        ),
        r#"["https://h/base/a?b","https://h/r"]"#
    );
}

/// `fetch()` reaches no network unless the host grants a transport; through one, the request
/// goes out as made and the response comes back checked, its headers immutable; an abort
/// rejects with its reason.
#[test]
fn fetch_goes_only_through_the_hosts_transport() {
    let mut runtime = web();
    assert_eq!(
        settle(&mut runtime, "return await fetch('https://example.com/');"),
        "rejects TypeError: fetch: this runtime's host grants it no network (runtime_web::transport::grant)"
    );

    /// Echoes what it was asked, and refuses one host.
    struct Echo;
    impl FetchTransport for Echo {
        fn fetch(&self, request: OutgoingRequest) -> Fetched {
            Box::pin(async move {
                if request.url.contains("denied.example") {
                    return Err("the origin is not allowed".to_owned());
                }
                let names: Vec<String> = request
                    .headers
                    .iter()
                    .map(|(name, value)| {
                        format!(
                            "{}={}",
                            String::from_utf8_lossy(name),
                            String::from_utf8_lossy(value)
                        )
                    })
                    .collect();
                let body = request
                    .body
                    .map(|body| String::from_utf8_lossy(&body).into_owned());
                Ok(IncomingResponse {
                    status: 201,
                    status_text: "Made".into(),
                    headers: vec![(b"X-Echo".to_vec(), b"1".to_vec())],
                    body: format!(
                        "{} {} {} {:?}",
                        request.method,
                        request.url,
                        names.join(","),
                        body
                    )
                    .into_bytes()
                    .into(),
                })
            })
        }
    }
    let mut runtime = granted(Echo);
    assert_eq!(
        settle(
            &mut runtime,
            "const r = await fetch('https://example.com/a', { method: 'POST', body: 'hi', headers: { 'X-A': '1' } }); \
             let frozen; try { r.headers.set('a', 'b'); } catch (e) { frozen = e.name; } \
             let denied; try { await fetch('https://denied.example/'); } catch (e) { denied = e.message; } \
             const c = new AbortController(); const pending = fetch('https://example.com/', { signal: c.signal }); c.abort('stop'); \
             let aborted; try { await pending; } catch (e) { aborted = e; } \
             return [r.status, r.statusText, r.type, r.url, r.headers.get('x-echo'), await r.text(), frozen, denied, aborted];"
        ),
        r#"[201,"Made","basic","https://example.com/a","1","POST https://example.com/a x-a=1,content-type=text/plain;charset=UTF-8 Some(\"hi\")","TypeError","fetch failed: the origin is not allowed","stop"]"#
    );
}

#[test]
fn form_data_round_trips_through_multipart_and_urlencoded_bodies() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const f = new FormData(); f.append('a', '1'); f.append('a', 'x\\ny'); f.append('we\"ird', new Blob(['bytes'], { type: 'text/x' }), 'f\"n.txt'); \
             f.set('b', '2'); f.append('blob', new Blob(['b'])); \
             const r = new Response(f); const type = r.headers.get('content-type'); \
             const back = await r.formData(); \
             const file = back.get('we\"ird'); \
             const urlencoded = await new Response(new URLSearchParams('p=1&q=%20')).formData(); \
             let bad; try { await new Response('x').formData(); } catch (e) { bad = e.name; } \
             return [type.startsWith('multipart/form-data; boundary='), back.getAll('a'), back.get('b'), \
                     file.name, file.type, await file.text(), back.get('blob').name, [...urlencoded], bad, [...f.keys()]];"
        ),
        r#"[true,["1","x\r\ny"],"2","f\"n.txt","text/x","bytes","blob",[["p","1"],["q"," "]],"TypeError",["a","a","we\"ird","b","blob"]]"#
    );
}

/// Redirects are followed by `fetch()` itself, each hop a request through the host's
/// transport (so a redirect into an origin the transport refuses is refused): 303 and a
/// POST under 301/302 become a GET without the body's headers, a cross-origin hop drops
/// `authorization`, `redirect: "error"` and `"manual"` hold, and a loop stops at 20.
#[test]
fn redirects_are_followed_hop_by_hop_through_the_transport() {
    /// Answers `/to/<status>/<location>` with that redirect and `/loop` with one to itself,
    /// refuses `denied.example`, and
    /// answers anything else with what it was asked; keeps the URLs it was asked for.
    struct Redirecting(Rc<RefCell<Vec<String>>>);
    impl FetchTransport for Redirecting {
        fn fetch(&self, request: OutgoingRequest) -> Fetched {
            self.0.borrow_mut().push(request.url.clone());
            Box::pin(async move {
                if request.url.starts_with("https://denied.example/") {
                    return Err("the origin is not allowed".to_owned());
                }
                let answer = |status: u16, headers: Vec<(Vec<u8>, Vec<u8>)>, body: String| {
                    Ok(IncomingResponse {
                        status,
                        status_text: String::new(),
                        headers,
                        body: body.into_bytes().into(),
                    })
                };
                if request.url.ends_with("/loop") {
                    return answer(
                        302,
                        vec![(b"location".to_vec(), b"/loop".to_vec())],
                        String::new(),
                    );
                }
                if let Some((_, rest)) = request.url.split_once("/to/") {
                    let (status, location) = rest.split_once('/').unwrap();
                    let location = location.replace("%3A", ":").replace("%2F", "/");
                    return answer(
                        status.parse().unwrap(),
                        vec![(b"Location".to_vec(), location.into_bytes())],
                        String::new(),
                    );
                }
                let headers: Vec<String> = request
                    .headers
                    .iter()
                    .map(|(name, _)| String::from_utf8_lossy(name).into_owned())
                    .collect();
                let body = request.body.map(|body| body.len());
                answer(
                    200,
                    Vec::new(),
                    format!("{} {} {:?}", request.method, headers.join(","), body),
                )
            })
        }
    }
    let asked = Rc::new(RefCell::new(Vec::new()));
    let mut runtime = granted(Redirecting(asked.clone()));
    assert_eq!(
        settle(
            &mut runtime,
            "const post = { method: 'POST', body: 'hi', headers: { 'content-type': 'text/plain', authorization: 'secret', 'x-keep': '1' } }; \
             const show = async (r) => [r.status, r.url, r.redirected, await r.text()]; \
             return [ \
               await show(await fetch('https://a.example/to/302/%2Fend', post)), \
               await show(await fetch('https://a.example/to/307/%2Fend', post)), \
               await show(await fetch('https://a.example/to/303/https%3A%2F%2Fb.example%2Fend', post)), \
               await show(await fetch('https://a.example/to/308/https%3A%2F%2Fb.example%2Fend', post)), \
             ];"
        ),
        r#"[[200,"https://a.example/end",true,"GET authorization,x-keep None"],[200,"https://a.example/end",true,"POST content-type,authorization,x-keep Some(2)"],[200,"https://b.example/end",true,"GET x-keep None"],[200,"https://b.example/end",true,"POST content-type,x-keep Some(2)"]]"#
    );
    asked.borrow_mut().clear();
    assert_eq!(
        settle(
            &mut runtime,
            "const outcome = (p) => p.then((r) => [r.type, r.status, r.url, r.redirected], (e) => e.name + ': ' + e.message); \
             return [ \
               await outcome(fetch('https://a.example/to/302/https%3A%2F%2Fdenied.example%2Fsecret')), \
               await outcome(fetch('https://a.example/to/301/%2Fend', { redirect: 'error' })), \
               await outcome(fetch('https://a.example/to/301/%2Fend', { redirect: 'manual' })), \
               await outcome(fetch('https://a.example/loop')), \
               await outcome(fetch('https://a.example/to/302/data:text%2Fplain,x')), \
             ];"
        ),
        r#"["TypeError: fetch failed: the origin is not allowed","TypeError: fetch failed: a redirect, with redirect mode \"error\".",["opaqueredirect",0,"https://a.example/to/301/%2Fend",false],"TypeError: fetch failed: more than 20 redirects.","TypeError: fetch failed: a redirect to data:, which is not HTTP(S)."]"#
    );
    // The denied origin was asked of the transport (which refused it), never reached.
    assert_eq!(
        asked.borrow()[1],
        "https://denied.example/secret",
        "{:?}",
        asked.borrow()
    );
}

/// `fetch()` asks its transport for HTTP(S) URLs only: any other scheme (`blob:`, whose
/// origin is its inner URL's, `data:`, `file:`, `about:`) is a `TypeError`, nothing asked.
#[test]
fn only_http_and_https_urls_reach_the_transport() {
    /// Answers 200 to anything; keeps the URLs it was asked for.
    struct Recording(Rc<RefCell<Vec<String>>>);
    impl FetchTransport for Recording {
        fn fetch(&self, request: OutgoingRequest) -> Fetched {
            self.0.borrow_mut().push(request.url);
            Box::pin(async {
                Ok(IncomingResponse {
                    status: 200,
                    status_text: String::new(),
                    headers: Vec::new(),
                    body: bytes::Bytes::new(),
                })
            })
        }
    }
    let asked = Rc::new(RefCell::new(Vec::new()));
    let mut runtime = granted(Recording(asked.clone()));
    assert_eq!(
        settle(
            &mut runtime,
            "const outcome = (p) => p.then((r) => r.status, (e) => e.name + ': ' + e.message); \
             return [ \
               await outcome(fetch('blob:https://a.example/x')), \
               await outcome(fetch('data:text/plain,x')), \
               await outcome(fetch('file:///etc/passwd')), \
               await outcome(fetch('about:blank')), \
               await outcome(fetch('https://a.example/x')), \
             ];"
        ),
        r#"["TypeError: fetch failed: blob: URLs are not fetched, only HTTP(S) ones.","TypeError: fetch failed: data: URLs are not fetched, only HTTP(S) ones.","TypeError: fetch failed: file: URLs are not fetched, only HTTP(S) ones.","TypeError: fetch failed: about: URLs are not fetched, only HTTP(S) ones.",200]"#
    );
    assert_eq!(*asked.borrow(), ["https://a.example/x"]);
}

/// A body made of a view is a copy of its bytes at that moment, made without reading anything
/// of the tenant's (no `constructor`, no species): later writes and patches change nothing.
#[test]
fn a_views_body_is_a_copy_taken_at_once() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const bytes = new Uint8Array([1, 2, 3]); \
             bytes.constructor = function () { throw new Error('species'); }; \
             const words = new Uint16Array([0x0201]); \
             const a = new Response(bytes); const b = new Response(words); const c = new Response(new DataView(bytes.buffer, 1)); \
             bytes[0] = 9; words[0] = 0; \
             return [[...await a.bytes()], [...await b.bytes()], [...await c.bytes()]];"
        ),
        "[[1,2,3],[1,2],[2,3]]"
    );
}

/// A small body's bytes are kept otherwise than a large one's: every byte value reads back
/// the same through every reader, on either side of the size where they part.
#[test]
fn small_and_large_bodies_read_back_alike() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const out = []; \
             for (const length of [0, 1, 64, 65]) { \
               const bytes = new Uint8Array(length).map((_, i) => 255 - i * 3); \
               const r = new Response(bytes); bytes.fill(0); \
               const clone = r.clone(); const streamed = r.clone(); \
               const all = [...await r.bytes()]; \
               const buffer = new Uint8Array(await clone.arrayBuffer()); \
               const blob = new Uint8Array(await (await new Response(bytes.length ? new Uint8Array(all) : bytes).blob()).arrayBuffer()); \
               const chunks = []; for await (const chunk of streamed.body ?? []) chunks.push(...chunk); \
               out.push([all.length, all[0], all[length - 1], \
                         buffer.join() === all.join(), blob.join() === all.join(), chunks.join() === all.join()]); \
             } \
             const text = await new Response(new Uint8Array([0xc3, 0xa9, 0x41])).text(); \
             return [out, text];"
        ),
        r#"[[[0,null,null,true,true,true],[1,255,255,true,true,true],[64,255,66,true,true,true],[65,255,63,true,true,true]],"éA"]"#
    );
}

/// Each interface has its own Body members, and each reads its own class's objects only: a
/// Response's `text` given a Request is a TypeError (it used to read the request's body).
#[test]
fn body_members_are_each_interfaces_own() {
    let mut runtime = web();
    assert_eq!(
        settle(
            &mut runtime,
            "const request = new Request('https://example.com/', { method: 'POST', body: 'secret' }); \
             const response = new Response('mine'); \
             const outcome = async (promise) => { try { return await promise; } catch (e) { return e.name; } }; \
             let getter = 'read'; \
             try { Object.getOwnPropertyDescriptor(Response.prototype, 'bodyUsed').get.call(request); } \
             catch (e) { getter = e.name; } \
             return [Request.prototype.text === Response.prototype.text, \
                     await outcome(Response.prototype.text.call(request)), \
                     await outcome(Request.prototype.json.call(response)), getter, \
                     request.bodyUsed, await request.text(), await response.text()];"
        ),
        r#"[false,"TypeError","TypeError","TypeError",false,"secret","mine"]"#
    );
}
