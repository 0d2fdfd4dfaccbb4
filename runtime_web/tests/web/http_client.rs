//! `transport::HttpClient` against servers on loopback: it reaches the origins its host
//! allows and nothing else (not directly, not through a redirect: the other server is never
//! connected to), `https:` ones in TLS verified against its roots, and a response too long or
//! too slow fails its request.

use std::convert::Infallible;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response};
use runtime_core::{Runtime, RuntimeOptions};
use runtime_web::transport::{self, HttpClient};

/// A test CA, `localhost`'s certificate (also for 127.0.0.1) and key, which that CA signed,
/// and another CA, which signed nothing here (made with openssl for these tests).
const TEST_CA: &[u8] = include_bytes!("tls/test_ca.pem");
const LOCALHOST_CERT: &[u8] = include_bytes!("tls/localhost_cert.pem");
const LOCALHOST_KEY: &[u8] = include_bytes!("tls/localhost_key.pem");
const OTHER_CA: &[u8] = include_bytes!("tls/other_ca.pem");

/// Serves as [`serve`] does, in TLS as `localhost`.
async fn serve_tls(other: Option<u16>) -> u16 {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain = CertificateDer::pem_slice_iter(LOCALHOST_CERT)
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(LOCALHOST_KEY).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A client that refuses the certificate ends the handshake: nothing to serve.
                let Ok(stream) = acceptor.accept(stream).await else {
                    return;
                };
                let service = hyper::service::service_fn(move |request: Request<_>| async move {
                    Ok::<_, Infallible>(respond(request, other).await)
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    port
}

/// Serves on a loopback port of its own: `/echo` (what it was asked), `/big` (2 MiB),
/// `/hang` (never answers), `/to-other` (a redirect to `other`'s `/echo`); counts the
/// connections it accepted.
async fn serve(other: Option<u16>) -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            counter.fetch_add(1, Ordering::SeqCst);
            let service = hyper::service::service_fn(move |request: Request<_>| async move {
                Ok::<_, Infallible>(respond(request, other).await)
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    (port, accepted)
}

async fn respond(
    request: Request<hyper::body::Incoming>,
    other: Option<u16>,
) -> Response<Full<Bytes>> {
    let path = request.uri().path().to_owned();
    match path.as_str() {
        "/big" => Response::new(Full::new(Bytes::from(vec![b'x'; 2 << 20]))),
        "/hang" => std::future::pending().await,
        "/to-other" => Response::builder()
            .status(302)
            .header(
                "location",
                format!("http://127.0.0.1:{}/echo", other.unwrap()),
            )
            .body(Full::default())
            .unwrap(),
        _ => {
            let method = request.method().to_string();
            let host = request.headers()["host"].to_str().unwrap().to_owned();
            let asked = request
                .headers()
                .get("x-asked")
                .map(|v| v.to_str().unwrap().to_owned());
            let query = request.uri().query().unwrap_or("").to_owned();
            let body = request.into_body().collect().await.unwrap().to_bytes();
            Response::builder()
                .header("x-served", "1")
                .body(Full::new(Bytes::from(format!(
                    "{method} {path}?{query} host={host} asked={asked:?} body={}",
                    String::from_utf8_lossy(&body)
                ))))
                .unwrap()
        }
    }
}

/// Asserts that `url`'s redirect to the `denied` port's server fails the fetch, naming that
/// origin, and that the server was never reached.
fn redirect_is_refused(
    tokio: &tokio::runtime::Runtime,
    client: HttpClient,
    url: &str,
    denied: u16,
    denied_accepted: &AtomicUsize,
) {
    assert_eq!(
        fetch_through(
            tokio,
            client,
            &format!("return (await fetch('{url}')).status;")
        ),
        format!("TypeError: fetch failed: the host does not allow http://127.0.0.1:{denied}")
    );
    assert_eq!(denied_accepted.load(Ordering::SeqCst), 0);
}

/// A runtime for a test's servers and requests, on this thread.
fn tokio() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A client allowed `http://127.0.0.1:{port}` alone.
fn loopback(port: u16) -> HttpClient {
    HttpClient::new([format!("http://127.0.0.1:{port}").as_str()]).unwrap()
}

/// A runtime whose `fetch()` goes through `client`, and what `script`'s promise settles to.
fn fetch_through(tokio: &tokio::runtime::Runtime, client: HttpClient, script: &str) -> String {
    fetch_entered(tokio, true, client, script)
}

/// As [`fetch_through`]; `enter`: whether the script runs with `tokio` entered.
fn fetch_entered(
    tokio: &tokio::runtime::Runtime,
    enter: bool,
    client: HttpClient,
    script: &str,
) -> String {
    let mut extensions = runtime_web::extensions(runtime_web::Groups::ALL);
    extensions.push(transport::grant(Rc::new(client)));
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions,
        ..Default::default()
    });
    let entered = enter.then(|| tokio.enter());
    runtime
        .execute_script(
            "<test>",
            &format!(
                "globalThis.out = 'pending'; (async () => {{ {script} }})().then( \
                 (v) => {{ out = JSON.stringify(v); }}, (e) => {{ out = e.name + ': ' + e.message; }});"
            ),
        )
        .unwrap();
    drop(entered);
    tokio.block_on(runtime.run_event_loop()).unwrap();
    runtime
        .execute_script_to_string("<out>", "globalThis.out")
        .unwrap()
}

#[test]
fn only_allowed_origins_are_reached_directly_or_by_redirect() {
    let tokio = tokio();
    let (denied, denied_accepted) = tokio.block_on(serve(None));
    let (allowed, _) = tokio.block_on(serve(Some(denied)));
    let client = || loopback(allowed);

    assert_eq!(
        fetch_through(
            &tokio,
            client(),
            &format!(
                "const get = await fetch('http://127.0.0.1:{allowed}/echo?a=1', {{ headers: {{ 'x-asked': 'yes', host: 'admin.internal' }} }}); \
                 const post = await fetch('http://127.0.0.1:{allowed}/echo', {{ method: 'POST', body: 'hello', headers: {{ 'content-length': '999', 'transfer-encoding': 'chunked' }} }}); \
                 return [get.status, get.statusText, get.headers.get('x-served'), await get.text(), await post.text()];"
            )
        ),
        format!(
            r#"[200,"OK","1","GET /echo?a=1 host=127.0.0.1:{allowed} asked=Some(\"yes\") body=","POST /echo? host=127.0.0.1:{allowed} asked=None body=hello"]"#
        )
    );
    assert_eq!(
        fetch_through(
            &tokio,
            client(),
            &format!("return (await fetch('http://127.0.0.1:{denied}/echo')).status;")
        ),
        format!("TypeError: fetch failed: the host does not allow http://127.0.0.1:{denied}")
    );
    let to_other = format!("http://127.0.0.1:{allowed}/to-other");
    redirect_is_refused(&tokio, client(), &to_other, denied, &denied_accepted);
}

#[test]
fn a_response_too_long_or_too_slow_fails_its_request() {
    let tokio = tokio();
    let (port, _) = tokio.block_on(serve(None));
    let client = loopback(port)
        .max_response_bytes(1 << 20)
        .timeout(Duration::from_millis(200));
    assert_eq!(
        fetch_through(
            &tokio,
            client.clone(),
            &format!("return (await fetch('http://127.0.0.1:{port}/big')).status;")
        ),
        "TypeError: fetch failed: the response is longer than 1048576 bytes"
    );
    assert_eq!(
        fetch_through(
            &tokio,
            client,
            &format!("return (await fetch('http://127.0.0.1:{port}/hang')).status;")
        ),
        "TypeError: fetch failed: no response within 200ms"
    );
}

/// A request started outside the host's tokio runtime fails with a reason, not a panic.
#[test]
fn a_request_outside_tokio_says_so() {
    let tokio = tokio();
    let client = HttpClient::new(["http://127.0.0.1:9"]).unwrap();
    assert_eq!(
        fetch_entered(
            &tokio,
            false,
            client,
            "return (await fetch('http://127.0.0.1:9/')).status;"
        ),
        "TypeError: fetch failed: HttpClient runs on tokio: enter the host's tokio runtime"
    );
}

/// An `https:` origin is reached in TLS, its certificate verified for its name (a DNS name or
/// an IP address) against the roots the host gave; a redirect from it to a denied origin is
/// refused as any request to one is.
#[test]
fn https_origins_are_reached_in_tls_verified_against_the_roots_given() {
    let tokio = tokio();
    let (denied, denied_accepted) = tokio.block_on(serve(None));
    let port = tokio.block_on(serve_tls(Some(denied)));
    let client = HttpClient::new([
        format!("https://localhost:{port}").as_str(),
        format!("https://127.0.0.1:{port}").as_str(),
    ])
    .unwrap()
    .root_certificates(TEST_CA)
    .unwrap();
    assert_eq!(
        fetch_through(
            &tokio,
            client.clone(),
            &format!(
                "const byName = await fetch('https://localhost:{port}/echo?a=1', {{ method: 'POST', body: 'hi' }}); \
                 const byAddress = await fetch('https://127.0.0.1:{port}/echo'); \
                 return [byName.status, await byName.text(), await byAddress.text()];"
            )
        ),
        format!(
            r#"[200,"POST /echo?a=1 host=localhost:{port} asked=None body=hi","GET /echo? host=127.0.0.1:{port} asked=None body="]"#
        )
    );
    let to_other = format!("https://localhost:{port}/to-other");
    redirect_is_refused(&tokio, client, &to_other, denied, &denied_accepted);
}

/// A server whose certificate the client's roots do not vouch for is refused before a
/// request is sent: roots given that did not sign it, or the system's (which hold no test
/// CA; a system with none says so).
#[test]
fn a_certificate_its_roots_do_not_vouch_for_fails_the_request() {
    let tokio = tokio();
    let port = tokio.block_on(serve_tls(None));
    let origin = format!("https://localhost:{port}");
    let fetch = format!("return (await fetch('{origin}/echo')).status;");
    let other = HttpClient::new([origin.as_str()])
        .unwrap()
        .root_certificates(OTHER_CA)
        .unwrap();
    assert_eq!(
        fetch_through(&tokio, other, &fetch),
        "TypeError: fetch failed: TLS with localhost failed: invalid peer certificate: UnknownIssuer"
    );
    let system = HttpClient::new([origin.as_str()]).unwrap();
    let refused = fetch_through(&tokio, system, &fetch);
    assert!(
        refused.starts_with(
            "TypeError: fetch failed: TLS with localhost failed: invalid peer certificate"
        ) || refused.starts_with("TypeError: fetch failed: no system root certificates"),
        "{refused}"
    );
}

#[test]
fn root_certificates_are_certificates() {
    let none = HttpClient::new(["https://localhost"])
        .unwrap()
        .root_certificates(b"not a PEM");
    assert_eq!(none.unwrap_err(), "no certificate in the PEM given");
    let broken = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    let broken = HttpClient::new(["https://localhost"])
        .unwrap()
        .root_certificates(broken);
    assert!(
        broken.unwrap_err().starts_with("a root certificate"),
        "a PEM block that is no certificate"
    );
}

#[test]
fn only_http_and_https_origins_are_allowed() {
    assert_eq!(
        HttpClient::new(["ftp://example.com"]).unwrap_err(),
        "ftp://example.com: only http: and https: origins"
    );
    assert_eq!(
        HttpClient::new(["example.com"]).unwrap_err(),
        "example.com: not a URL"
    );
}

/// A URL of another scheme is refused before anything is resolved, whatever its origin: a
/// `blob:` URL's origin is that of the URL inside it, which the host may allow.
#[test]
fn only_http_and_https_urls_are_requested() {
    use runtime_web::transport::{FetchTransport, OutgoingRequest};
    let tokio = tokio();
    let (allowed, accepted) = tokio.block_on(serve(None));
    let client = loopback(allowed);
    let url = format!("blob:http://127.0.0.1:{allowed}/echo");
    let refused = tokio.block_on(client.fetch(OutgoingRequest {
        method: "GET".to_owned(),
        url: url.clone(),
        headers: Vec::new(),
        body: None,
    }));
    assert_eq!(
        refused.unwrap_err(),
        format!("{url}: only http: and https: URLs")
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
}

/// Serves `/slow` on a loopback port of its own, answering each request 50 ms after it came;
/// keeps the most requests it had in hand at once.
async fn serve_slowly() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let in_hand = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let seen = most.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (in_hand, most) = (in_hand.clone(), most.clone());
            let service = hyper::service::service_fn(move |_: Request<_>| {
                let (in_hand, most) = (in_hand.clone(), most.clone());
                async move {
                    let now = in_hand.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    // Given back before the response is sent: the client has not had it yet.
                    in_hand.fetch_sub(1, Ordering::SeqCst);
                    Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"done"))))
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    (port, seen)
}

/// A tenant's many `fetch()`es hold the client's few connections (six unless the host says
/// otherwise): the rest wait their turn, and all are answered.
#[test]
fn requests_in_flight_are_limited_per_client() {
    let tokio = tokio();
    let script = |port: u16, count: usize| {
        format!(
            "const all = []; \
             for (let i = 0; i < {count}; i++) all.push(fetch('http://127.0.0.1:{port}/slow').then((r) => r.text())); \
             return (await Promise.all(all)).filter((text) => text === 'done').length;"
        )
    };
    let (port, most) = tokio.block_on(serve_slowly());
    let client = loopback(port);
    assert_eq!(fetch_through(&tokio, client, &script(port, 12)), "12");
    assert!(
        most.load(Ordering::SeqCst) <= 6,
        "{most:?} requests in hand at once"
    );
    let (port, most) = tokio.block_on(serve_slowly());
    let client = loopback(port).max_in_flight(2);
    assert_eq!(fetch_through(&tokio, client, &script(port, 5)), "5");
    assert!(
        most.load(Ordering::SeqCst) <= 2,
        "{most:?} requests in hand at once"
    );
}

/// A client whose system roots could not be read reads them again at its next `https:`
/// request: the failure is not kept. In a child process whose `SSL_CERT_FILE` names a file
/// that is missing at the first request and written (the test CA) before the second.
#[cfg(unix)]
#[test]
fn system_roots_are_read_again_after_a_failure() {
    const CHILD: &str = "OPWIRE_TEST_ROOTS_FILE";
    let Some(file) = std::env::var_os(CHILD) else {
        let dir = std::env::temp_dir().join(format!("opwire-roots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("roots.pem");
        let name = "http_client::system_roots_are_read_again_after_a_failure";
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, &file)
            .env("SSL_CERT_FILE", &file)
            .env_remove("SSL_CERT_DIR")
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    };
    let tokio = tokio();
    let port = tokio.block_on(serve_tls(None));
    let client = HttpClient::new([format!("https://localhost:{port}").as_str()]).unwrap();
    let script = format!("return (await fetch('https://localhost:{port}/echo')).status;");
    let first = fetch_through(&tokio, client.clone(), &script);
    assert!(
        first.starts_with("TypeError: fetch failed: no system root certificates"),
        "{first}"
    );
    std::fs::write(&file, TEST_CA).unwrap();
    assert_eq!(fetch_through(&tokio, client, &script), "200");
}

/// An aborted `fetch()` lets go of its request at once (its connection, and its turn among
/// the client's requests in flight), rather than when its timeout ends it.
#[test]
fn an_aborted_fetch_lets_go_of_its_request() {
    let tokio = tokio();
    let (port, _) = tokio.block_on(serve(None));
    let client = loopback(port)
        .max_in_flight(1)
        .timeout(Duration::from_secs(20));
    assert_eq!(
        fetch_through(
            &tokio,
            client,
            &format!(
                "const aborting = new AbortController(); \
                 const hung = fetch('http://127.0.0.1:{port}/hang', {{ signal: aborting.signal }}) \
                   .then(() => 'answered', (e) => e.name); \
                 await new Promise((r) => setTimeout(r, 50)); \
                 aborting.abort(); \
                 let timer; \
                 const waited = new Promise((r) => {{ timer = setTimeout(() => r('still waiting'), 10000); }}); \
                 const next = fetch('http://127.0.0.1:{port}/echo').then((r) => r.status); \
                 const first = await Promise.race([next, waited]); \
                 clearTimeout(timer); \
                 return [await hung, first];"
            )
        ),
        r#"["AbortError",200]"#
    );
}

/// A `fetch()` aborted before its request went out (its body still being read) sends nothing.
#[test]
fn a_fetch_aborted_before_it_is_sent_sends_nothing() {
    let tokio = tokio();
    let (port, accepted) = tokio.block_on(serve(None));
    let client = loopback(port);
    assert_eq!(
        fetch_through(
            &tokio,
            client,
            &format!(
                "const aborting = new AbortController(); \
                 const sent = fetch('http://127.0.0.1:{port}/echo', {{ method: 'POST', body: 'x', signal: aborting.signal }}); \
                 aborting.abort(); \
                 return await sent.then(() => 'answered', (e) => e.name);"
            )
        ),
        r#""AbortError""#
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
}
