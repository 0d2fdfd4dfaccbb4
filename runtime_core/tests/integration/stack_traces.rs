//! Errors as a host reads them: structured frames, where it happened in `Display`, and
//! positions mapped through a module's source map (given by the loader, or inline).

use crate::common;

use std::rc::Rc;

use common::tokio;
use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{JsError, JsLocation, JsStackFrame, Runtime, RuntimeOptions};
use sourcemap::SourceMapBuilder;

fn runtime(modules: Vec<(&str, ModuleSource)>) -> Runtime {
    Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(StaticModuleLoader::new(
            modules
                .into_iter()
                .map(|(url, source)| (url.to_owned(), source)),
        ))),
        ..Default::default()
    })
}

/// Loads and evaluates `url`, then calls its export `name` with no arguments: the error.
fn call_export(runtime: &mut Runtime, url: &str, name: &str) -> JsError {
    let tokio = tokio();
    let id = tokio.block_on(runtime.load_main_module(url)).unwrap();
    tokio.block_on(runtime.mod_evaluate(id)).unwrap();
    let function = runtime.module_function(id, name).unwrap();
    runtime.call::<()>(&function, ()).unwrap_err()
}

fn frame(function: Option<&str>, file: &str, line: u32, column: u32) -> JsStackFrame {
    JsStackFrame {
        function_name: function.map(Into::into),
        file_name: Some(file.to_owned()),
        line_number: Some(line),
        column_number: Some(column),
        ..JsStackFrame::default()
    }
}

#[test]
fn a_thrown_error_has_structured_frames_and_displays_them() {
    let mut runtime = runtime(vec![(
        "file:///app/plugin.js",
        ModuleSource::js(
            "function inner() {\n  throw new TypeError('no such key');\n}\n\
             export function run() {\n  inner();\n}\n\
             const api = { get() { inner(); } };\n\
             export function viaMethod() { api.get(); }\n\
             async function middle() { await null; inner(); }\n\
             export async function outer() { await middle(); }\n",
        ),
    )]);
    let error = call_export(&mut runtime, "file:///app/plugin.js", "run");
    assert_eq!(
        error.frames,
        [
            frame(Some("inner"), "file:///app/plugin.js", 2, 9),
            frame(Some("run"), "file:///app/plugin.js", 5, 3),
        ]
    );
    assert_eq!(
        error.location,
        Some(Box::new(JsLocation {
            file_name: "file:///app/plugin.js".into(),
            line_number: 2,
            column_number: 9
        }))
    );
    assert_eq!(
        error.to_string(),
        "Uncaught TypeError: no such key\n    at inner (file:///app/plugin.js:2:9)\n    at run (file:///app/plugin.js:5:3)"
    );
    // The stack text is V8's, with the same frames.
    assert_eq!(
        error.stack.as_deref(),
        Some("TypeError: no such key\n    at inner (file:///app/plugin.js:2:9)\n    at run (file:///app/plugin.js:5:3)")
    );

    // A method call names its receiver's type; an awaiting caller is an async frame.
    let error = call_export(&mut runtime, "file:///app/plugin.js", "viaMethod");
    assert_eq!(
        error.frames[1].function_name.as_deref(),
        Some("Object.get"),
        "{error}"
    );
    let tokio = tokio();
    let id = tokio
        .block_on(runtime.load_main_module("file:///app/plugin.js"))
        .unwrap();
    let outer = runtime.module_function(id, "outer").unwrap();
    let error = tokio
        .block_on(runtime.call_and_await::<()>(&outer, ()))
        .unwrap_err();
    let names: Vec<_> = error
        .frames
        .iter()
        .map(|frame| (frame.function_name.as_deref(), frame.is_async))
        .collect();
    assert_eq!(
        names,
        [
            (Some("inner"), false),
            (Some("middle"), false),
            (Some("outer"), true)
        ],
        "{error}"
    );
    assert!(error
        .to_string()
        .contains("    at async outer (file:///app/plugin.js:"));
}

#[test]
fn a_constructor_frame_says_new() {
    let mut runtime = runtime(vec![(
        "file:///app/widget.js",
        ModuleSource::js(
            "class Widget { constructor() { throw new Error('bad widget'); } }\n\
             export function make() { return new Widget(); }\n",
        ),
    )]);
    let error = call_export(&mut runtime, "file:///app/widget.js", "make");
    assert!(error.frames[0].is_constructor, "{error}");
    assert!(
        error
            .to_string()
            .contains("    at new Widget (file:///app/widget.js:1:38)"),
        "{error}"
    );
}

#[test]
fn a_syntax_error_displays_where_it_is() {
    let mut runtime = runtime(vec![(
        "file:///app/broken.js",
        ModuleSource::js("export function f() {\n  return 1 +;\n}\n"),
    )]);
    let error = tokio()
        .block_on(runtime.load_main_module("file:///app/broken.js"))
        .unwrap_err();
    assert_eq!(error.class_name, "SyntaxError");
    assert_eq!(
        error.location.as_ref().map(ToString::to_string).as_deref(),
        Some("file:///app/broken.js:2:13"),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .ends_with("\n    at file:///app/broken.js:2:13"),
        "{error}"
    );
}

/// A map of `generated`'s lines onto `main.ts`: generated line `n` (0-based) comes from
/// original line `10 * n + 9` at column 4.
pub(super) fn map_to_typescript(lines: u32) -> Vec<u8> {
    let mut builder = SourceMapBuilder::new(Some("main.js"));
    for line in 0..lines {
        for column in [0, 2, 8, 16, 24] {
            builder.add(
                line,
                column,
                10 * line + 9,
                4,
                Some("../src/main.ts"),
                None,
                false,
            );
        }
    }
    let mut json = Vec::new();
    builder.into_sourcemap().to_writer(&mut json).unwrap();
    json
}

const GENERATED: &str = "export function run() {\n  fail();\n}\nfunction fail() {\n  throw new Error('from TypeScript');\n}\n";

#[test]
fn a_loaders_source_map_points_frames_at_the_original_source() {
    let mut runtime = runtime(vec![(
        "file:///app/dist/main.js",
        ModuleSource::js(GENERATED).with_source_map(map_to_typescript(6)),
    )]);
    let error = call_export(&mut runtime, "file:///app/dist/main.js", "run");
    assert_eq!(
        error.frames,
        [
            frame(Some("fail"), "file:///app/src/main.ts", 50, 5),
            frame(Some("run"), "file:///app/src/main.ts", 20, 5),
        ]
    );
    let stack = error.stack.unwrap_or_default();
    assert!(
        stack.contains("at fail (file:///app/src/main.ts:50:5)"),
        "{stack}"
    );
}

#[test]
fn an_inline_source_map_is_read_from_the_source() {
    let map = sourcemap::SourceMap::from_slice(&map_to_typescript(6)).unwrap();
    let source = format!(
        "{GENERATED}//# sourceMappingURL={}\n",
        map.to_data_url().unwrap()
    );
    let mut runtime = runtime(vec![("file:///app/dist/main.js", ModuleSource::js(source))]);
    let error = call_export(&mut runtime, "file:///app/dist/main.js", "run");
    assert_eq!(
        error
            .location
            .map(|location| location.to_string())
            .as_deref(),
        Some("file:///app/src/main.ts:50:5")
    );
    // A script's inline map too.
    let script = format!(
        "function fail() {{\n  throw new Error('x');\n}}\nfail();\n//# sourceMappingURL={}\n",
        map.to_data_url().unwrap()
    );
    let error = runtime
        .execute_script("file:///app/dist/script.js", &script)
        .unwrap_err();
    assert_eq!(
        error.frames[0].file_name.as_deref(),
        Some("file:///app/src/main.ts")
    );
    assert_eq!(error.frames[0].line_number, Some(20));
}

#[test]
fn a_scripts_own_prepare_stack_trace_is_still_called() {
    let mut runtime = runtime(Vec::new());
    let stack = runtime
        .execute_script_to_string(
            "prepare.js",
            "Error.prepareStackTrace = (error, sites) => \
                 `${error.message} at ${sites[0].getFunctionName()}:${sites[0].getLineNumber()}`;\n\
             function where() { return new Error('here').stack; }\n\
             where()",
        )
        .unwrap();
    assert_eq!(stack, "here at where:2");
    // A getter on `message` is not run by the runtime's formatter.
    let stack = runtime
        .execute_script_to_string(
            "getter.js",
            "delete Error.prepareStackTrace;\n\
             globalThis.ran = false;\n\
             const e = new Error('plain');\n\
             Object.defineProperty(e, 'name', { get() { globalThis.ran = true; return 'X'; } });\n\
             e.stack + ' ' + ran",
        )
        .unwrap();
    assert_eq!(stack, "Error: plain\n    at getter.js:3:11 false");
}

#[test]
fn a_stack_formatted_at_the_edge_of_the_stack_is_still_a_stack() {
    let mut runtime = runtime(Vec::new());
    // Each frame reads the stack of the overflow it caught, as deep as the stack goes: the
    // formatter's own calls overflow there, and it still answers.
    let first_lines = runtime
        .execute_script_to_string(
            "deep.js",
            "const seen = new Set();\n\
             function f() { try { return f(); } catch (e) { seen.add(String(e.stack).split('\\n')[0]); throw e; } }\n\
             try { f(); } catch {}\n\
             [...seen].join('|')",
        )
        .unwrap();
    assert_eq!(first_lines, "RangeError: Maximum call stack size exceeded");
}

/// A script with a hand-written inline map (`mappings`, and `rangeMappings` if given).
fn with_inline_map(script: &str, mappings: &str, range_mappings: Option<&str>) -> String {
    let mut json =
        format!(r#"{{"version":3,"sources":["original.ts"],"names":[],"mappings":"{mappings}""#);
    if let Some(range_mappings) = range_mappings {
        json.push_str(&format!(r#","rangeMappings":"{range_mappings}""#));
    }
    json.push('}');
    let encoded = sourcemap::SourceMap::from_slice(json.as_bytes())
        .unwrap()
        .to_data_url()
        .unwrap();
    format!("{script}\n//# sourceMappingURL={encoded}\n")
}

#[test]
fn a_map_that_points_nowhere_leaves_the_frame_unmapped() {
    // Each aborted the process: `+ 1` on the crate's "unmapped" sentinel overflowed inside V8's
    // stack callback, or the crate's own lookup underflowed there.
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let cases = [
        // A segment of one field: a generated position with no original one.
        ("throw new Error('x');", "A", None, 1),
        // A source line delta that makes the line -1.
        ("throw new Error('x');", "AADA", None, 1),
        // A source column delta that makes the column -1.
        ("throw new Error('x');", "AAAD", None, 1),
        // A range token at column 16 of line 1, looked up from column 1 of line 2.
        ("\nthrow new Error('x');", "gBAAA", Some("B"), 2),
    ];
    for (script, mappings, range_mappings, line) in cases {
        let source = with_inline_map(script, mappings, range_mappings);
        let error = runtime.execute_script("tenant.js", &source).unwrap_err();
        assert_eq!(
            error
                .location
                .map(|location| location.to_string())
                .as_deref(),
            Some(format!("tenant.js:{line}:7").as_str()),
            "{mappings}"
        );
    }
}

#[test]
fn a_script_run_again_without_its_map_is_not_mapped_by_the_old_one() {
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let mapped = with_inline_map("throw new Error('x');", "AAyGA", None);
    let error = runtime.execute_script("same.js", &mapped).unwrap_err();
    assert_eq!(
        error
            .location
            .map(|location| location.to_string())
            .as_deref(),
        Some("original.ts:106:1")
    );
    let error = runtime
        .execute_script("same.js", "\n\nlet a; throw new Error('y');")
        .unwrap_err();
    assert_eq!(
        error
            .location
            .map(|location| location.to_string())
            .as_deref(),
        Some("same.js:3:14")
    );
}

#[test]
fn a_stack_keeps_a_bounded_number_of_frames_and_of_characters_each() {
    // A thousand frames of a function named by a 4 MB string (or in a file whose
    // `sourceURL` is one) made gigabytes of frames and stack text.
    let mut runtime = Runtime::new(RuntimeOptions::default());
    let cases = [
        "Error.stackTraceLimit = 1000;
         const name = 'f'.repeat(4 << 20);
         const named = { [name]: (n) => { if (n === 0) throw new Error('deep'); return named(n - 1); } }[name];
         named(999);",
        "Error.stackTraceLimit = 1000;
         const url = 'u'.repeat(4 << 20);
         globalThis.inFile = new Function('n', 'if (n === 0) throw new Error(\"deep\"); return inFile(n - 1);\\n//# sourceURL=' + url);
         inFile(999);",
    ];
    for source in cases {
        let error = runtime.execute_script("deep.js", source).unwrap_err();
        assert_eq!(error.frames.len(), 256, "{error:?}");
        for frame in &error.frames {
            let longest = [&frame.function_name, &frame.file_name]
                .into_iter()
                .flatten()
                .map(|text| text.chars().count())
                .max()
                .unwrap_or(0);
            assert!(longest <= 1025, "{longest}");
        }
        let stack = error.stack.unwrap();
        assert!(stack.len() < 1 << 20, "{}", stack.len());
        assert!(
            stack.ends_with("more frames"),
            "{}",
            &stack[stack.len() - 40..]
        );
    }
}

#[runtime_core::op(stack_trace)]
fn op_traced() {}

#[test]
fn an_ops_stack_trace_points_at_the_original_source() {
    let seen: Rc<std::cell::RefCell<Vec<JsStackFrame>>> = Rc::default();
    let record = seen.clone();
    let mut runtime = Runtime::new(RuntimeOptions {
        extensions: vec![runtime_core::Extension::new("traced").ops(&[op_traced::DECL])],
        op_stack_trace_callback: Some(Rc::new(move |_, frames| {
            record.borrow_mut().extend(frames.iter().take(1).cloned());
        })),
        ..Default::default()
    });
    // Generated line 1 comes from original.ts line 11, column 1.
    let script = with_inline_map("ops.op_traced();", "AAUA", None);
    runtime
        .execute_script("file:///app/dist/traced.js", &script)
        .unwrap();
    assert_eq!(
        *seen.borrow(),
        [frame(None, "file:///app/dist/original.ts", 11, 1)]
    );
}
