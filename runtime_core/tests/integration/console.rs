//! The built-in `console`: Node-like formatting, levels to their streams, and leaving it out.

use std::cell::RefCell;
use std::rc::Rc;

use runtime_core::console::ConsoleLevel;
use runtime_core::{Runtime, RuntimeOptions};

type Lines = Rc<RefCell<Vec<(ConsoleLevel, String)>>>;

fn capturing() -> (Runtime, Lines) {
    let lines: Lines = Rc::default();
    let sink = lines.clone();
    let runtime = Runtime::new(RuntimeOptions {
        console: Some(Rc::new(move |level, line| {
            sink.borrow_mut().push((level, line.to_owned()))
        })),
        ..Default::default()
    });
    (runtime, lines)
}

#[test]
fn formats_as_node_does_for_common_values() {
    let (mut runtime, lines) = capturing();
    runtime
        .execute_script(
            "log.js",
            "console.log('a', 1, -0, 2n, {a: 1, b: 'x', 'c d': [1, {e: null}]}, [], {}, \
                         function named() {}, () => 1, undefined, true, Symbol('s'));
             console.log({a: {b: {c: {d: 1}}}});
             class Point { constructor() { this.x = 1; } }
             console.info(new Point());
             console.debug('details');
             console.warn('careful');
             console.error(new TypeError('bad').message);",
        )
        .unwrap();
    let lines = lines.borrow();
    assert_eq!(
        *lines,
        [
            (
                ConsoleLevel::Log,
                "a 1 -0 2n { a: 1, b: 'x', 'c d': [ 1, { e: null } ] } [] {} [Function: named] \
                 [Function (anonymous)] undefined true Symbol(s)"
                    .to_owned()
            ),
            (
                ConsoleLevel::Log,
                "{ a: { b: { c: [Object] } } }".to_owned()
            ),
            (ConsoleLevel::Info, "Point { x: 1 }".to_owned()),
            (ConsoleLevel::Debug, "details".to_owned()),
            (ConsoleLevel::Warn, "careful".to_owned()),
            (ConsoleLevel::Error, "bad".to_owned()),
        ]
    );
}

#[test]
fn the_console_can_be_left_out_and_its_op_is_hidden() {
    let (mut runtime, _) = capturing();
    let hidden = runtime
        .execute_script_to_string("ops.js", "typeof ops.op_console_print")
        .unwrap();
    assert_eq!(hidden, "undefined");
    assert!(!runtime
        .typescript_declarations()
        .contains("op_console_print"));
    assert!(runtime.op_decl("op_console_print").is_some());
    // Left out: no op, and `console` is V8's own, which prints nothing.
    let mut bare = Runtime::new(RuntimeOptions {
        console: None,
        ..Default::default()
    });
    assert!(bare.op_decl("op_console_print").is_none());
    bare.execute_script("bare.js", "console.log('nowhere')")
        .unwrap();
}

#[test]
fn maps_sets_and_typed_arrays_print_as_node_prints_them() {
    let (mut runtime, lines) = capturing();
    runtime
        .execute_script(
            "collections.js",
            "console.log(new Map([['a', 1], [2, { b: 'c' }]]), new Map());
             console.log(new Set([1, 'x']), new Uint8Array([1, 2, 3]), new Float64Array(0));
             console.log(new ArrayBuffer(4), { bytes: new Uint16Array([7]) });",
        )
        .unwrap();
    let lines = lines.borrow();
    let texts: Vec<&str> = lines.iter().map(|(_, text)| text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Map(2) { 'a' => 1, 2 => { b: 'c' } } Map(0) {}",
            "Set(2) { 1, 'x' } Uint8Array(3) [ 1, 2, 3 ] Float64Array(0) []",
            "ArrayBuffer { [Uint8Contents]: <00 00 00 00>, byteLength: 4 } { bytes: Uint16Array(1) [ 7 ] }",
        ]
    );
}

#[test]
fn console_is_defined_as_the_web_defines_it() {
    let (mut runtime, _) = capturing();
    let descriptor = runtime
        .execute_script_to_string(
            "descriptor.js",
            "const d = Object.getOwnPropertyDescriptor(globalThis, 'console');
             [d.writable, d.enumerable, d.configurable].join()",
        )
        .unwrap();
    assert_eq!(descriptor, "true,false,true");
}

#[test]
fn a_replaced_intrinsic_is_never_handed_the_inspect_op() {
    // `console.log` mapped and joined its arguments with the intrinsics of the moment: a
    // script's `Array.prototype.map` was handed a function over the internal inspect op, which
    // reads a proxy's target and a promise's state.
    let (mut runtime, lines) = capturing();
    let leaked = runtime
        .execute_script_to_string(
            "patched.js",
            "let leaked = 'nothing';\n\
             Array.prototype.map = function (f) { leaked = 'map'; return []; };\n\
             Array.prototype.join = function () { leaked = 'join'; return ''; };\n\
             Array.prototype[Symbol.iterator] = function* () { leaked = 'iterator'; };\n\
             console.log('one', 2);\n\
             leaked",
        )
        .unwrap();
    assert_eq!(leaked, "nothing");
    assert_eq!(lines.borrow()[0].1, "one 2");
}
