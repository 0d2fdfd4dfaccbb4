//! `URL` and `URLSearchParams`, by the URL standard.

use crate::{eval, web};

#[test]
fn a_url_gives_each_component() {
    let mut runtime = web();
    let parts = eval(
        &mut runtime,
        "const u = new URL('HTTPS://user:pa%20ss@EXAMPLE.com:8443/a/./b/../c?q=1&r=%2F#frag'); \
         return [u.href, u.protocol, u.username, u.password, u.host, u.hostname, u.port, \
                 u.pathname, u.search, u.hash, u.origin, String(u), u.toJSON()];",
    );
    assert_eq!(
        parts,
        r##"["https://user:pa%20ss@example.com:8443/a/c?q=1&r=%2F#frag","https:","user","pa%20ss","example.com:8443","example.com","8443","/a/c","?q=1&r=%2F","#frag","https://example.com:8443","https://user:pa%20ss@example.com:8443/a/c?q=1&r=%2F#frag","https://user:pa%20ss@example.com:8443/a/c?q=1&r=%2F#frag"]"##
    );
    // A default port is dropped; an empty query and fragment read as "".
    assert_eq!(
        eval(
            &mut runtime,
            "const u = new URL('http://h:80/?#'); return [u.href, u.port, u.search, u.hash];"
        ),
        r##"["http://h/?#","","",""]"##
    );
    // Opaque paths, non-special schemes and IPv6 hosts.
    assert_eq!(
        eval(
            &mut runtime,
            "const u = new URL('mailto:Joe@Example.com'); return [u.pathname, u.host, u.origin];"
        ),
        r#"["Joe@Example.com","","null"]"#
    );
    assert_eq!(
        eval(
            &mut runtime,
            "const u = new URL('http://[::1]:3000/x'); return [u.hostname, u.host, u.origin];"
        ),
        r#"["[::1]","[::1]:3000","http://[::1]:3000"]"#
    );
    assert_eq!(
        eval(
            &mut runtime,
            "return new URL('blob:https://a.example/uuid').origin;"
        ),
        r#""https://a.example""#
    );
}

#[test]
fn relative_urls_resolve_against_a_base_and_failures_are_type_errors() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "return new URL('../d?x#y', 'https://h/a/b/c').href;"
        ),
        r##""https://h/a/d?x#y""##
    );
    assert_eq!(
        eval(
            &mut runtime,
            "return new URL('//other/p', new URL('https://h/')).href;"
        ),
        r#""https://other/p""#
    );
    assert_eq!(
        eval(&mut runtime, "return new URL('nope');"),
        "throws TypeError: Invalid URL: 'nope'"
    );
    assert_eq!(
        eval(&mut runtime, "return new URL('/x', 'not a base');"),
        "throws TypeError: Invalid URL: '/x'"
    );
    assert_eq!(
        eval(&mut runtime, "return new URL();"),
        "throws TypeError: Failed to execute 'constructor' on 'URL': 1 argument required, but only 0 present."
    );
    assert_eq!(
        eval(&mut runtime, "return [URL.canParse('a:b'), URL.canParse('/x'), URL.canParse('/x', 'https://h'), URL.parse('nope'), URL.parse('/p', 'https://h').href];"),
        r#"[true,false,true,null,"https://h/p"]"#
    );
}

#[test]
fn setters_follow_the_standard_and_refusals_change_nothing() {
    let mut runtime = web();
    let after = eval(
        &mut runtime,
        "const u = new URL('https://h/p?q#f'); \
         u.protocol = 'http'; u.username = 'me'; u.password = 'pw'; u.hostname = 'EX.com'; \
         u.port = '8080'; u.pathname = '/a b'; u.search = 'x=1'; u.hash = 'top'; \
         const set = u.href; \
         u.port = 'nope'; u.protocol = 'mailto'; u.host = ''; \
         return [set, u.href];",
    );
    assert_eq!(
        after,
        r##"["http://me:pw@ex.com:8080/a%20b?x=1#top","http://me:pw@ex.com:8080/a%20b?x=1#top"]"##
    );
    assert_eq!(
        eval(
            &mut runtime,
            "const u = new URL('https://h/'); u.href = 'nope'; return u.href;"
        ),
        "throws TypeError: Invalid URL: 'nope'"
    );
    assert_eq!(
        eval(
            &mut runtime,
            "const u = new URL('https://h/'); u.href = 'http://o/z'; return [u.host, u.pathname];"
        ),
        r#"["o","/z"]"#
    );
}

#[test]
fn search_params_and_their_url_stay_one() {
    let mut runtime = web();
    let linked = eval(
        &mut runtime,
        "const u = new URL('https://h/?a=1&b=2&a=3'); const p = u.searchParams; \
         const first = [p.get('a'), p.getAll('a'), p.has('b'), p.has('a', '3'), p.size]; \
         p.append('c', 'x y'); p.delete('b'); const after = u.search; \
         u.search = '?z=9'; const reread = [p.get('z'), p.size, u.searchParams === p]; \
         p.delete('z'); return [first, after, reread, u.href];",
    );
    assert_eq!(
        linked,
        r#"[["1",["1","3"],true,true,3],"?a=1&a=3&c=x+y",["9",1,true],"https://h/"]"#
    );
}

#[test]
fn search_params_convert_every_init_and_iterate_live() {
    let mut runtime = web();
    assert_eq!(
        eval(&mut runtime, "return [new URLSearchParams('?a=b+c&d=%26'), new URLSearchParams([['x', 1], ['y', null]]), new URLSearchParams({ k: 'v', 'é': '☃' })].map(String);"),
        r#"["a=b+c&d=%26","x=1&y=null","k=v&%C3%A9=%E2%98%83"]"#
    );
    assert_eq!(
        eval(&mut runtime, "return new URLSearchParams([['only-one']]);"),
        "throws TypeError: Failed to construct 'URLSearchParams': a pair must have exactly two items."
    );
    assert_eq!(
        eval(&mut runtime, "const p = new URLSearchParams('b=2&a=1&b=1&a=0'); p.sort(); const seen = []; for (const [k, v] of p) { seen.push(k + v); if (seen.length === 1) p.append('c', '3'); } return [String(p), seen, [...p.keys()], [...p.values()]];"),
        r#"["a=1&a=0&b=2&b=1&c=3",["a1","a0","b2","b1","c3"],["a","a","b","b","c"],["1","0","2","1","3"]]"#
    );
    // Lone surrogates are replaced (USVString).
    assert_eq!(
        eval(
            &mut runtime,
            "return new URLSearchParams({ '\\ud800': 'x' }).toString();"
        ),
        r#""%EF%BF%BD=x""#
    );
}

/// URLs parsed from the same input are each their own (the parse is remembered, never
/// shared): a setter changes one URL alone, and many inputs parse as they would alone.
#[test]
fn urls_from_one_input_are_each_their_own() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const input = 'https://example.com:8080/a/b?q=1#h'; \
             const first = new URL(input); first.pathname = '/changed'; first.searchParams.set('q', '2'); \
             const second = new URL(input); \
             const many = []; \
             for (let i = 0; i < 600; i++) many.push(new URL('http://h/' + (i % 300)).pathname); \
             const again = new URL(input); \
             return [first.href, second.href, second.search, again.href, many[299], many[599], \
                     new URL('HTTP://EXAMPLE.com/./x/../y').href, new URL('HTTP://EXAMPLE.com/./x/../y').href];"
        ),
        r#"["https://example.com:8080/changed?q=2#h","https://example.com:8080/a/b?q=1#h","?q=1","https://example.com:8080/a/b?q=1#h","/299","/299","http://example.com/y","http://example.com/y"]"#
    );
}
