//! `#[op] impl` classes on real V8: deno's `object_wrap.rs` shapes (constructor, getter and
//! setter, methods fast and slow, statics, renames), instances on cppgc collected with `Drop`
//! run, receivers checked, subclassing from JavaScript, factories.

use crate::common;

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{counting_runtime, eval, DESCRIBE_JS};
use runtime_core::{op, Extension, OpError, OpState, Runtime, Trace};

include!("../../../testdata/ops/classes.rs");

static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// Counts its drops, to see the collector free instances (only `collected_instances_drop`
/// makes any: tests run in parallel).
pub struct Counted {
    _payload: Vec<u8>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

static LAGGING_DROPPED: AtomicUsize = AtomicUsize::new(0);

/// A class with an async method (its own drop counter: tests run in parallel).
pub struct Lagging {
    factor: u32,
}

impl Drop for Lagging {
    fn drop(&mut self) {
        LAGGING_DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

#[op]
impl Lagging {
    #[constructor]
    fn new() -> Lagging {
        Lagging { factor: 64 }
    }

    /// An async method: its receiver is held (alive) until it settles.
    async fn later(&self, by: u32) -> u32 {
        tokio::task::yield_now().await;
        by * self.factor
    }

    /// An async method done during its call.
    async fn now(&self, by: u32) -> u32 {
        by * self.factor
    }

    /// An async static method.
    #[static_method]
    async fn twice(x: u32) -> u32 {
        x * 2
    }
}

/// What `scaled` reads from the op state.
struct Scale(u32);

#[op]
impl Counted {
    #[constructor]
    fn new() -> Counted {
        Counted {
            _payload: vec![0; 64],
        }
    }
}

/// A class whose method reads the op state.
pub struct Scaled;

#[op]
impl Scaled {
    #[constructor]
    fn new() -> Scaled {
        Scaled
    }

    /// A method reading the op state, which a free op changes.
    #[fast]
    fn scaled(&self, by: u32, state: &OpState) -> u32 {
        by * state.borrow::<Scale>().0
    }
}

#[op(fast)]
fn op_set_scale(state: &mut OpState, scale: u32) {
    state.put(Scale(scale));
}

fn runtime() -> Runtime {
    let mut runtime = counting_runtime(vec![Extension::new("classes")
        .state(|state| {
            state.put(Scale(1));
        })
        .ops(&[
            op_set_scale::DECL,
            op_open_handle::DECL,
            op_sides::DECL,
            op_cppgc_object::DECL,
            op_option_cppgc_object::DECL,
            op_make_cppgc_object::DECL,
            op_use_cppgc_object::DECL,
            op_make_cppgc_object_option::DECL,
        ])
        .classes(&[
            Foo::CLASS,
            Handle::CLASS,
            Counted::CLASS,
            Scaled::CLASS,
            Lagging::CLASS,
            Shape::CLASS,
            Square::CLASS,
            Checked::CLASS,
        ])]);
    runtime.execute_script("describe", DESCRIBE_JS).unwrap();
    runtime
}

#[test]
fn construct_get_set_and_call() {
    let mut rt = runtime();
    rt.execute_script(
        "setup",
        "globalThis.foo = new ops.Foo(3); globalThis.other = new ops.Foo(4);",
    )
    .unwrap();
    assert_eq!(eval(&mut rt, "foo.x"), "number 3");
    assert_eq!(eval(&mut rt, "(foo.x = 9, foo.x)"), "number 9");
    assert_eq!(eval(&mut rt, "new ops.Foo().x"), "number 0");
    assert_eq!(eval(&mut rt, "foo.add(other)"), "number 13");
    assert_eq!(eval(&mut rt, "foo.describe('x = ')"), "string \"x = 9\"");
    assert_eq!(eval(&mut rt, "foo.bar(1)"), "undefined undefined");
    assert_eq!(
        eval(&mut rt, "typeof foo.with_RENAME"),
        "string \"function\""
    );
    assert_eq!(
        eval(&mut rt, "typeof ops.Foo.do_thing"),
        "string \"function\""
    );
    assert_eq!(eval(&mut rt, "typeof foo.do_thing"), "string \"function\"");
    assert_eq!(eval(&mut rt, "foo instanceof ops.Foo"), "boolean true");
    assert_eq!(eval(&mut rt, "ops.Foo.name"), "string \"Foo\"");
    // Fast methods take the fast path once optimized, with the slow path's results.
    rt.reset_op_call_counts();
    rt.execute_script(
        "hot",
        "function hot() { let s = 0; for (let i = 0; i < 10; i++) s += foo.add(other); return s }\n\
         %PrepareFunctionForOptimization(hot); hot(); %OptimizeFunctionOnNextCall(hot); hot();",
    )
    .unwrap();
    let counts = rt.op_call_counts("Foo.prototype.add").unwrap();
    assert!(counts.fast > 0, "{counts:?}");
    assert_eq!(eval(&mut rt, "hot()"), "number 130");
}

#[test]
fn errors_name_the_member() {
    let mut rt = runtime();
    rt.execute_script("setup", "globalThis.foo = new ops.Foo(3);")
        .unwrap();
    for (script, error) in [
        ("ops.Foo(1)", "TypeError: Class constructor Foo cannot be invoked without 'new'"),
        ("new ops.Foo('a')", "TypeError: new Foo: argument 1 (x) must be a number (u32), received a string"),
        ("(foo.x = 'a')", "TypeError: set Foo.prototype.x: argument 1 (x) must be a number (u32), received a string"),
        ("foo.add({})", "TypeError: Foo.prototype.add: argument 1 (other) must be an instance of Foo, received an object"),
        ("foo.add(ops.op_open_handle(1))", "TypeError: Foo.prototype.add: argument 1 (other) must be an instance of Foo, received an object"),
        ("foo.describe('')", "TypeError: empty prefix"),
        // A receiver the class did not make: V8's own check, on both paths.
        ("ops.Foo.prototype.zzz.call({})", "TypeError: Illegal invocation"),
        ("Object.getOwnPropertyDescriptor(ops.Foo.prototype, 'x').get.call(ops.op_open_handle(1))", "TypeError: Illegal invocation"),
        ("new ops.Handle()", "TypeError: Illegal constructor"),
    ] {
        assert_eq!(eval(&mut rt, script), format!("throws {error}"), "{script}");
    }
}

#[test]
fn factories_and_subclasses() {
    let mut rt = runtime();
    assert_eq!(eval(&mut rt, "ops.op_open_handle(7).id"), "number 7");
    assert_eq!(
        eval(&mut rt, "ops.op_open_handle(7) instanceof ops.Handle"),
        "boolean true"
    );
    assert_eq!(
        eval(
            &mut rt,
            "(() => { class Bar extends ops.Foo { constructor() { super(5) } twice() { return this.x * 2 } } \
             const bar = new Bar(); return [bar.twice(), bar instanceof ops.Foo, bar.add(bar)].join() })()"
        ),
        "string \"10,true,10\""
    );
}

#[test]
fn methods_see_the_state_as_it_is_now() {
    let mut rt = runtime();
    rt.execute_script("setup", "globalThis.c = new ops.Scaled();")
        .unwrap();
    assert_eq!(eval(&mut rt, "c.scaled(2)"), "number 2");
    assert_eq!(
        eval(&mut rt, "(ops.op_set_scale(10), c.scaled(2))"),
        "number 20"
    );
    rt.execute_script(
        "hot",
        "function hot(n) { ops.op_set_scale(n); let s = 0; for (let i = 0; i < 10; i++) s += c.scaled(1); return s }\n\
         %PrepareFunctionForOptimization(hot); hot(3); %OptimizeFunctionOnNextCall(hot); hot(3);",
    )
    .unwrap();
    assert_eq!(eval(&mut rt, "hot(7)"), "number 70");
    assert!(rt.op_call_counts("Scaled.prototype.scaled").unwrap().fast > 0);
}

#[test]
fn collected_instances_drop() {
    let mut rt = runtime();
    let before = DROPPED.load(Ordering::SeqCst);
    rt.execute_script(
        "make",
        "for (let i = 0; i < 100000; i++) new ops.Counted(); globalThis.kept = new ops.Counted();",
    )
    .unwrap();
    // A full collection finds them; their finalizers (`Drop`) may run in sweeping that
    // finishes after `gc()` returns, on V8's worker threads, which the other tests of this
    // binary keep busy: collect until all are in, for up to 20 s (200 quick `gc()`s without a
    // pause were not always enough there). A few may outlive those collections (seen once in
    // 40 runs with 8 test threads on 2 cores: 2 of 100,000 still alive after 20 s; what held
    // them is not known), which the count allows; dropping the runtime drops every one.
    let dropped = || DROPPED.load(Ordering::SeqCst) - before;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while dropped() < 100_000 && std::time::Instant::now() < deadline {
        rt.execute_script("gc", "gc()").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let collected = dropped();
    assert!(
        (99_990..=100_000).contains(&collected),
        "the unreachable instances dropped, the kept one not: {collected}"
    );
    assert_eq!(
        eval(&mut rt, "(gc(), gc(), kept.constructor.name)"),
        r#"string "Counted""#,
        "the reachable instance stays"
    );
    assert!(dropped() <= 100_000, "the reachable instance stays");
    // Dropping the runtime drops what is left.
    drop(rt);
    assert_eq!(dropped(), 100_001);
}

#[test]
fn inheritance_and_plain_wrappers() {
    let mut rt = runtime();
    rt.execute_script("setup", "globalThis.square = new ops.Square(3);")
        .unwrap();
    for (script, out) in [
        ("square.area()", "number 9"),
        ("square.sides", "number 4"),
        ("square.describe_shape()", "number 40"),
        ("square instanceof ops.Shape", "boolean true"),
        (
            "Object.getPrototypeOf(ops.Square.prototype) === ops.Shape.prototype",
            "boolean true",
        ),
        ("ops.op_sides(square)", "number 4"),
        ("String(square)", "string \"[object Square]\""),
        // deno's cppgc_resource: plain wrappers, checked by type.
        (
            "ops.op_cppgc_object(ops.op_make_cppgc_object())",
            "undefined undefined",
        ),
        ("ops.op_option_cppgc_object(null)", "undefined undefined"),
        (
            "ops.op_option_cppgc_object(ops.op_make_cppgc_object_option())",
            "undefined undefined",
        ),
        (
            "ops.op_use_cppgc_object(ops.op_make_cppgc_object())",
            "undefined undefined",
        ),
    ] {
        assert_eq!(eval(&mut rt, script), out, "{script}");
    }
    for (script, error) in [
        // A base is not its derived class; a plain wrapper is no class instance.
        (
            "Object.getOwnPropertyDescriptor(ops.Square.prototype, 'area').value.call(new ops.Foo())",
            "TypeError: Illegal invocation",
        ),
        (
            "ops.op_sides(ops.op_make_cppgc_object())",
            "TypeError: op_sides: argument 1 (shape) must be an instance of Shape, received an object",
        ),
        (
            "ops.op_cppgc_object(square)",
            "TypeError: op_cppgc_object: argument 1 (_resource) must be an instance of Wrap, received an object",
        ),
        (
            "ops.op_cppgc_object({})",
            "TypeError: op_cppgc_object: argument 1 (_resource) must be an instance of Wrap, received an object",
        ),
    ] {
        assert_eq!(eval(&mut rt, script), format!("throws {error}"), "{script}");
    }
    // The fast paths agree (`op_sides` and the `Option` one, optimized).
    rt.reset_op_call_counts();
    rt.execute_script(
        "hot",
        "function hot() { let s = 0; for (let i = 0; i < 10; i++) { s += ops.op_sides(square); ops.op_option_cppgc_object(null) } return s }\n\
         %PrepareFunctionForOptimization(hot); hot(); %OptimizeFunctionOnNextCall(hot); hot();",
    )
    .unwrap();
    for op in ["op_sides", "op_option_cppgc_object"] {
        let counts = rt.op_call_counts(op).unwrap();
        assert!(counts.fast > 0, "{op}: {counts:?}");
    }
    assert_eq!(eval(&mut rt, "hot()"), "number 40");
}

#[test]
fn class_declarations_type_check_with_tsc() {
    let Some(tsc) = common::tsc() else { return };
    let classes = [Foo::CLASS, Handle::CLASS, Shape::CLASS, Square::CLASS];
    let dts = runtime_core::typescript_declarations(
        "ops",
        &[op_open_handle::DECL, op_sides::DECL],
        &classes,
    );
    let usage = "\
        const foo = new ops.Foo(3);\n\
        const n: number = foo.x + foo.add(new ops.Foo()) + foo.describe('a').length;\n\
        foo.x = n;\n\
        ops.Foo.do_thing();\n\
        const handle = ops.op_open_handle(1);\n\
        const id: number = handle.id;\n\
        const square = new ops.Square(2);\n\
        const area: number = square.area() + square.sides + ops.op_sides(square);\n\
        const shape: ops.Shape = square;\n\
        // @ts-expect-error: no `new` on a class without a constructor\n\
        new ops.Handle();\n\
        // @ts-expect-error: a Foo is no Shape\n\
        ops.op_sides(foo);\n\
        // @ts-expect-error: a setter takes a number\n\
        foo.x = 'a';\n\
        export {};\n";
    common::type_check(&tsc, "classes", &dts, usage)
        .unwrap_or_else(|report| panic!("{report}\n--- ops.d.ts\n{dts}"));
    // The check can fail.
    assert!(common::type_check(
        &tsc,
        "classes-bad",
        &dts,
        "ops.op_sides(new ops.Foo());\nexport {};\n"
    )
    .is_err());
}

#[test]
fn async_methods_hold_their_receiver() {
    let mut rt = runtime();
    let before = LAGGING_DROPPED.load(Ordering::SeqCst);
    rt.execute_script(
        "later",
        "globalThis.out = null; (() => { const c = new ops.Lagging(); c.later(2).then(v => globalThis.out = v) })(); gc(); gc();",
    )
    .unwrap();
    // Unreachable from JavaScript, yet held by the pending method.
    assert_eq!(LAGGING_DROPPED.load(Ordering::SeqCst) - before, 0);
    assert_eq!(common::settle_and_read_out(&mut rt), "128");
    // Settled: the handle is gone, and the instance can go.
    for _ in 0..200 {
        if LAGGING_DROPPED.load(Ordering::SeqCst) - before >= 1 {
            break;
        }
        rt.execute_script("gc", "gc()").unwrap();
    }
    assert_eq!(LAGGING_DROPPED.load(Ordering::SeqCst) - before, 1);
    // An async method never throws: a wrong receiver rejects (V8's own check), and a method
    // that finishes during its call resolves a promise too.
    rt.execute_script(
        "receiver",
        "globalThis.out = []; \
         const later = new ops.Lagging().later; \
         const rejected = later.call({}, 1); \
         out.push(rejected instanceof Promise, later.length, later.name); \
         rejected.catch((e) => out.push(String(e))); \
         const now = new ops.Lagging().now(3); \
         out.push(now instanceof Promise); \
         now.then((v) => out.push(v)); \
         const twice = ops.Lagging.twice(4); \
         out.push(twice instanceof Promise, ops.Lagging.twice.name); \
         twice.then((v) => out.push(v));",
    )
    .unwrap();
    assert_eq!(
        common::settle_and_read_out(&mut rt),
        "true,1,later,true,true,twice,TypeError: Illegal invocation,192,8"
    );
}

#[test]
fn the_ops_object_lists_ops_and_classes_not_class_internals() {
    let mut rt = runtime();
    let internals = rt
        .execute_script_to_string(
            "keys.js",
            "Object.keys(ops).filter((k) => /[ .]/.test(k)).join()",
        )
        .unwrap();
    assert_eq!(internals, "", "no `new Foo` nor `Foo.prototype.x` on ops");
    assert_eq!(
        rt.execute_script_to_string("foo.js", "[typeof ops.Foo, typeof ops.op_sides].join()")
            .unwrap(),
        "function,function"
    );
}

// ---- a `Held` outliving its runtime ----------------------------------------------------------

/// A class whose instances an op keeps beyond the runtime.
pub struct Kept {
    value: u32,
}

#[op]
impl Kept {
    #[constructor]
    fn new(value: u32) -> Kept {
        Kept { value }
    }
}

thread_local! {
    static KEPT: std::cell::RefCell<Option<runtime_core::class::Held<Kept>>> =
        const { std::cell::RefCell::new(None) };
}

#[op]
fn op_keep(#[cppgc] kept: runtime_core::class::Held<Kept>) {
    KEPT.with(|slot| *slot.borrow_mut() = Some(kept));
}

#[op]
fn op_read_kept() -> u32 {
    KEPT.with(|slot| slot.borrow().as_ref().map_or(0, |kept| kept.value))
}

fn keeping_runtime() -> Runtime {
    common::init_test_flags();
    Runtime::new(runtime_core::RuntimeOptions {
        extensions: vec![Extension::new("keep")
            .ops(&[op_keep::DECL, op_read_kept::DECL])
            .classes(&[Kept::CLASS])],
        ..Default::default()
    })
}

#[test]
fn a_held_instance_outliving_its_runtime_refuses_to_be_read() {
    // Issue 38, 11: a `Held<T>` kept in a thread-local and read after its runtime dropped, or
    // by another runtime's op, read freed memory (SIGSEGV).
    common::quiet_expected_panics("a Held<");
    let mut first = keeping_runtime();
    first
        .execute_script("k.js", "ops.op_keep(new ops.Kept(42))")
        .unwrap();
    assert_eq!(
        first
            .execute_script_to_string("r.js", "ops.op_read_kept()")
            .unwrap(),
        "42"
    );
    drop(first);
    KEPT.with(|slot| {
        let slot = slot.borrow();
        let kept = slot.as_ref().expect("kept");
        assert!(kept.get().is_none());
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| kept.value));
        assert!(read.is_err(), "reading it panics");
    });
    let mut second = keeping_runtime();
    let thrown = second
        .execute_script_to_string(
            "r.js",
            "try { ops.op_read_kept() } catch (e) { e.name + ': ' + e.message }",
        )
        .unwrap();
    assert!(
        thrown.starts_with("Error: op_read_kept panicked: a Held<")
            && thrown.ends_with("was read after its runtime was dropped"),
        "{thrown}"
    );
    // Dropping it touches nothing of the freed heap either.
    KEPT.with(|slot| slot.borrow_mut().take());
    assert_eq!(
        second
            .execute_script_to_string("r.js", "ops.op_read_kept()")
            .unwrap(),
        "0"
    );
}

#[test]
fn validate_checks_the_raw_arguments_before_the_member_runs() {
    // `#[validate(f)]` was refused before (deno's object_wrap form); now the constructor and
    // the method run only when `f` accepts the call's arguments, on every call (the members
    // have no fast path, where the check could not run).
    let mut rt = runtime();
    let thrown = |rt: &mut Runtime, code: &str| {
        rt.execute_script_to_string(
            "validate.js",
            &format!("try {{ {code}; 'no error' }} catch (e) {{ `${{e.constructor.name}}: ${{e.message}}` }}"),
        )
        .unwrap()
    };
    assert_eq!(
        thrown(&mut rt, "new ops.Checked(0)"),
        "RangeError: the first argument must be a positive number"
    );
    assert_eq!(
        thrown(&mut rt, "new ops.Checked('x')"),
        "RangeError: the first argument must be a positive number"
    );
    assert_eq!(
        rt.execute_script_to_string(
            "grow.js",
            "const c = new ops.Checked(2); let sum = 0;\n\
             for (let i = 0; i < 10000; i++) sum += c.grow(1);\n\
             let refused = 0;\n\
             for (let i = 0; i < 10000; i++) { try { c.grow(-1); } catch { refused++; } }\n\
             `${sum} ${refused}`",
        )
        .unwrap(),
        "30000 10000"
    );
}

// ---- instances a host passes in and reads back -------------------------------------------

/// A native value no class declares: a host's object JavaScript passes along.
pub struct Ticket {
    number: std::cell::Cell<u32>,
}

// SAFETY: holds no V8 reference.
unsafe impl runtime_core::Trace for Ticket {}

#[op]
fn op_punch(#[cppgc] ticket: &Ticket) -> u32 {
    ticket.number.set(ticket.number.get() + 1);
    ticket.number.get()
}

#[test]
fn a_host_passes_an_instance_in_and_reads_it_back() {
    use runtime_core::class::Held;
    use runtime_core::Wrapped;
    common::init_test_flags();
    let mut rt = Runtime::new(runtime_core::RuntimeOptions {
        extensions: vec![Extension::new("tickets").ops(&[op_punch::DECL])],
        ..Default::default()
    });
    let pass = rt
        .execute_script(
            "p.js",
            "(ticket, wrong) => wrong ? {} : (ops.op_punch(ticket), ticket)",
        )
        .unwrap();
    let pass = rt
        .with_scope(|scope| {
            let pass = v8::Local::new(scope, pass);
            v8::Local::<v8::Function>::try_from(pass).map(|f| v8::Global::new(scope, f))
        })
        .unwrap();
    let ticket = Wrapped(Ticket {
        number: std::cell::Cell::new(7),
    });
    let back: Held<Ticket> = rt.call(&pass, (ticket, false)).unwrap();
    assert_eq!(back.number.get(), 8);
    // Anything but an instance of the type is a conversion error, not a read of it.
    let other = Wrapped(Ticket {
        number: std::cell::Cell::new(0),
    });
    let Err(error) = rt.call::<Held<Ticket>>(&pass, (other, true)) else {
        panic!("a plain object read as a Ticket");
    };
    assert!(
        error.to_string().contains("expected an instance of"),
        "{error}"
    );
    let error = rt.call::<Held<Kept>>(&pass, (Wrapped(Ticket { number: 0.into() }), false));
    assert!(error.is_err(), "another type's instance is refused");
}
