//! `Headers`, by the Fetch standard: names are case-insensitive tokens, values byte strings
//! trimmed of HTTP whitespace with no NUL, CR or LF; iteration sorts and combines (but
//! `set-cookie`); every init form converts.

use crate::{eval, web};

#[test]
fn names_are_case_insensitive_and_values_combine() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const h = new Headers({ 'Content-Type': 'text/plain' }); \
             h.append('X-A', '1'); h.append('x-a', ' 2 \\t'); \
             const before = [h.get('CONTENT-TYPE'), h.get('x-a'), h.has('X-a'), h.get('nope'), h.has('nope')]; \
             h.set('x-A', '3'); const set = h.get('x-a'); \
             h.delete('Content-type'); \
             return [before, set, h.get('content-type'), [...h]];"
        ),
        r#"[["text/plain","1, 2",true,null,false],"3",null,[["x-a","3"]]]"#
    );
}

#[test]
fn iteration_sorts_and_combines_but_set_cookie() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const h = new Headers([['b', '1'], ['Set-Cookie', 'x=1'], ['a', '2'], ['set-cookie', 'y=2'], ['B', '3']]); \
             const seen = []; h.forEach((value, name, self) => seen.push(name + '=' + value + (self === h))); \
             return [[...h], [...h.keys()], [...h.values()], h.getSetCookie(), h.get('set-cookie'), seen];"
        ),
        r#"[[["a","2"],["b","1, 3"],["set-cookie","x=1"],["set-cookie","y=2"]],["a","b","set-cookie","set-cookie"],["2","1, 3","x=1","y=2"],["x=1","y=2"],"x=1, y=2",["a=2true","b=1, 3true","set-cookie=x=1true","set-cookie=y=2true"]]"#
    );
    // Live, as pair iterators are: a change is seen by the next step.
    assert_eq!(
        eval(
            &mut runtime,
            "const h = new Headers({ a: '1', c: '3' }); const it = h.keys(); const first = it.next().value; \
             h.append('b', '2'); return [first, it.next().value, it.next().value, it.next().done, Object.prototype.toString.call(it)];"
        ),
        r#"["a","b","c",true,"[object Headers Iterator]"]"#
    );
}

#[test]
fn every_init_form_converts_and_bad_input_is_a_type_error() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const from = new Headers({ a: '1' }); from.append('a', '2'); \
             const pairs = new Headers(new Map([['m', 1], ['n', null]])); \
             return [[...new Headers(from)], [...pairs], [...new Headers()], [...new Headers({})], \
                     Object.prototype.toString.call(from), typeof Headers.prototype[Symbol.iterator]];"
        ),
        r#"[[["a","1, 2"]],[["m","1"],["n","null"]],[],[],"[object Headers]","function"]"#
    );
    for (script, error) in [
        ("new Headers(5)", "The provided value is not of type"),
        ("new Headers([['a']])", "exactly two items"),
        ("new Headers([['a', '1', '2']])", "exactly two items"),
        ("new Headers([5])", "not a sequence"),
        (
            "new Headers({ 'bad name': 'x' })",
            "Invalid name: \"bad name\"",
        ),
        ("new Headers().append('a', 'x\\ny')", "Invalid value"),
        ("new Headers().append('a', 'x\\0y')", "Invalid value"),
        (
            "new Headers().set('a', '\\u0100')",
            "is not a valid ByteString",
        ),
        ("new Headers().get('')", "Invalid name"),
        (
            "new Headers().append('a')",
            "2 arguments required, but only 1 present.",
        ),
        (
            "new Headers({ [Symbol()]: 'x' })",
            "a record key is a symbol",
        ),
    ] {
        let out = eval(&mut runtime, &format!("return {script};"));
        assert!(out.starts_with("throws TypeError: "), "{script}: {out}");
        assert!(out.contains(error), "{script}: {out}");
    }
    // Whitespace inside a value is kept; at its ends it goes (LF and CR there are trimmed, not
    // refused).
    assert_eq!(
        eval(
            &mut runtime,
            "return new Headers({ a: '\\r\\n a  b \\t' }).get('a');"
        ),
        r#""a  b""#
    );
}

#[test]
fn a_tenant_patching_intrinsics_changes_nothing() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "Array.prototype.push = () => { throw new Error('patched'); }; \
             RegExp.prototype.exec = () => null; String.prototype.toLowerCase = () => 'x'; \
             Array.prototype.sort = () => { throw new Error('patched'); }; \
             const h = new Headers({ B: '1', a: '2' }); h.append('c', '3'); \
             let bad = 'accepted'; try { h.append('bad name', 'x'); } catch (e) { bad = e.name; } \
             return [[...h], bad];"
        ),
        r#"[[["a","2"],["b","1"],["c","3"]],"TypeError"]"#
    );
}

#[test]
fn a_headers_with_an_iterator_of_its_own_is_read_through_it() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const h = new Headers({ a: '1' }); h[Symbol.iterator] = function* () { yield ['b', '2']; }; \
             return [...new Headers(h).keys(), new Headers(new Headers({ c: '3' })).get('c')];"
        ),
        r#"["b","3"]"#
    );
}

/// A record's keys: an ordinary object's own enumerable string keys in order, then its
/// symbols (an enumerable one throws, after the string keys' getters ran); a key a getter
/// deleted or hid on the way is skipped; a proxy's traps run in the standard's order.
#[test]
fn a_record_reads_own_enumerable_keys_and_a_proxy_in_order() {
    let mut runtime = web();
    assert_eq!(
        eval(
            &mut runtime,
            "const init = Object.create({ inherited: 'x' }); \
             init.b = '1'; init[2] = 'two'; init.a = '2'; \
             Object.defineProperty(init, 'hidden', { value: 'x', enumerable: false }); \
             Object.defineProperty(init, Symbol('quiet'), { value: 'y', enumerable: false }); \
             const deleting = { get first() { delete this.second; return 'f'; }, second: 's', third: 't' }; \
             const hiding = { get first() { Object.defineProperty(this, 'second', { enumerable: false }); \
                                            return 'f'; }, second: 's' }; \
             const log = []; \
             const proxy = new Proxy({ a: '1', b: '2' }, { \
               ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t); }, \
               getOwnPropertyDescriptor(t, k) { log.push('gopd ' + k); return Reflect.getOwnPropertyDescriptor(t, k); }, \
               get(t, k) { log.push('get ' + String(k)); return Reflect.get(t, k); } }); \
             const seen = []; \
             const loud = { get a() { seen.push('a'); return '1'; }, [Symbol('loud')]: 'x' }; \
             let error = 'accepted'; try { new Headers(loud); } catch (e) { error = e.message; } \
             return [[...new Headers(init)], [...new Headers(deleting)], [...new Headers(hiding)], \
                     [...new Headers(proxy)], log, seen, error];"
        ),
        r#"[[["2","two"],["a","2"],["b","1"]],[["first","f"],["third","t"]],[["first","f"]],[["a","1"],["b","2"]],["get Symbol(Symbol.iterator)","ownKeys","gopd a","get a","gopd b","get b"],["a"],"Failed to construct 'Headers': a record key is a symbol."]"#
    );
}
