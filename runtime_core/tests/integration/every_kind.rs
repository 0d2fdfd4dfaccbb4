//! Every row of the kind table, run: `testdata/every_kind.rs` (generated from the table) has an
//! op per argument kind and per return kind; each must compile and give its result on both
//! paths (the fast one wherever the op has one).

// Generated ops take their argument and ignore it.
#![allow(dead_code, clippy::boxed_local, clippy::ptr_arg, clippy::unused_unit)]

use crate::common;

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::c_void;
use std::rc::Rc;

use common::{call_both_ways, DESCRIBE_JS};
use runtime_core::class::Held;
use runtime_core::{
    op, v8, ByteString, DetachedBuffer, Extension, FromV8, JsBuffer, OpDecl, OpError, OpState,
    ToV8, V8Slice,
};

/// An alias, as `#[smi]` types often are.
type ResourceId = u16;

/// A type of the user's own for `#[from_v8]` and `#[to_v8]`: a Number.
struct Sample(f64);

impl<'s> FromV8<'s> for Sample {
    fn from_v8(
        _scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        v8::Local::<v8::Number>::try_from(value)
            .map(|number| Sample(number.value()))
            .map_err(|_| OpError::type_error("expected a number"))
    }
}

impl ToV8 for Sample {
    fn to_v8<'s>(
        self,
        scope: &mut v8::PinScope<'s, '_>,
    ) -> Result<v8::Local<'s, v8::Value>, OpError> {
        Ok(v8::Number::new(scope, self.0).into())
    }
}

/// A class for the `#[cppgc]` rows.
pub struct Widget;

#[op]
impl Widget {
    #[constructor]
    fn new() -> Widget {
        Widget
    }
}

/// What the External samples point at.
static SAMPLE_BYTE: u8 = 0;

/// An External for the arguments that take one.
#[op]
fn ret_external() -> *const c_void {
    std::ptr::addr_of!(SAMPLE_BYTE).cast()
}

include!("../../../testdata/every_kind.rs");

fn every_kind_options() -> runtime_core::RuntimeOptions {
    common::init_test_flags();
    let decls: Vec<OpDecl> = std::iter::once(ret_external::DECL)
        .chain(every_decl())
        .collect();
    let decls: &'static [OpDecl] = Box::leak(decls.into_boxed_slice());
    assert_eq!(ROWS.len() + 1, decls.len());
    runtime_core::RuntimeOptions {
        extensions: vec![Extension::new("every_kind")
            .ops(decls)
            .classes(&[Widget::CLASS])],
        op_call_counters: true,
        ..Default::default()
    }
}

fn assert_every_kind_runs(runtime: &mut runtime_core::Runtime) {
    let mut failures = Vec::new();
    for &(op, args, expected) in ROWS {
        let [(slow, _), (optimized, path)] = call_both_ways(runtime, op, args, args);
        let has_fast_path = runtime.op_decl(op).unwrap().has_fast_path();
        if slow != expected || optimized != expected || (has_fast_path && path != "fast") {
            failures.push(format!(
                "{op}({args}): slow {slow:?}, {path} {optimized:?}, want {expected:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_kind_runs_on_both_paths() {
    let mut runtime = runtime_core::Runtime::new(every_kind_options());
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    assert_every_kind_runs(&mut runtime);
}

/// The same from a startup snapshot: every op's functions (both paths, metered variants),
/// the class and `describe` (bootstrap code) come back from the blob.
#[test]
fn every_kind_runs_on_both_paths_from_a_snapshot() {
    let mut builder = runtime_core::SnapshotBuilder::new(every_kind_options()).unwrap();
    builder.execute_script("describe", DESCRIBE_JS).unwrap();
    let blob = builder.build().unwrap();
    let mut runtime = runtime_core::Runtime::new(runtime_core::RuntimeOptions {
        startup_snapshot: Some(blob.into()),
        ..every_kind_options()
    });
    assert_eq!(
        runtime
            .execute_script_to_string("check.js", "typeof describe + ' ' + typeof ops.Widget")
            .unwrap(),
        "function function"
    );
    assert_every_kind_runs(&mut runtime);
}

#[test]
fn every_kind_type_checks_with_tsc() {
    let Some(tsc) = common::tsc() else { return };
    let decls: Vec<OpDecl> = std::iter::once(ret_external::DECL)
        .chain(every_decl())
        .collect();
    let dts = runtime_core::typescript_declarations("ops", &decls, &[Widget::CLASS]);
    // Every op called as the runtime test calls it, its result typed as declared.
    let mut usage = String::from("// Each op with the arguments the every-kind test passes.\n");
    for &(op, args, _) in ROWS {
        // (`ret_external()` is declared `object | null`; the sample is never null.)
        let args = args.replace("ops.ret_external()", "ops.ret_external()!");
        usage.push_str(&format!("ops.{op}({args});\n"));
    }
    // And misuses, each of which must be a type error (`@ts-expect-error` fails if not).
    let row = |sample: &str| {
        ROWS.iter()
            .find(|(op, args, _)| op.starts_with("arg_") && *args == sample)
            .unwrap_or_else(|| panic!("a row passing {sample}"))
            .0
    };
    for (sample, wrong) in [
        ("true", "1"),
        ("2", "'2'"),
        ("2n", "2"),
        ("'s'", "2"),
        ("new Uint16Array(2)", "new Int16Array(2)"),
        ("new ArrayBuffer(2)", "new Uint8Array(2)"),
    ] {
        usage.push_str(&format!(
            "// @ts-expect-error\nops.{}({wrong});\n",
            row(sample)
        ));
    }
    usage.push_str("const made: number = ops.ret_2();\n// @ts-expect-error\nconst wrong: string = ops.ret_2();\n");
    if let Err(report) = common::type_check(&tsc, "every-kind", &dts, &usage) {
        panic!("tsc failed:\n{report}\n--- ops.d.ts\n{dts}");
    }
    // The same file with one misuse unmarked must fail: the check can fail.
    assert!(
        common::type_check(&tsc, "every-kind-bad", &dts, &(usage + "ops.arg_0(1);\n")).is_err(),
        "tsc accepted a boolean op called with a number"
    );
}
