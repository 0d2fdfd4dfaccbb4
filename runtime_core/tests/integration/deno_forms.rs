//! deno's forms of async ops, `required(n)`, unnamed arguments and pointers, as a host that
//! ports deno ops writes them (the ops are the embedding tests' extension).

use super::embedding::runtime_with;
use crate::common::tokio;

#[test]
fn deno_forms_async_required_and_unnamed_arguments() {
    let mut rt = runtime_with(&[]);
    rt.execute_script(
        "forms.js",
        "globalThis.out = [];
         ops.op_async_form(1).then((v) => out.push('async ' + v));
         ops.op_with_meta().then((v) => out.push('meta ' + v));
         ops.op_counter_later(10).then((c) => out.push((c instanceof ops.Counter) + ' ' + c.add(1)));
         const attempt = (f) => { try { return f(); } catch (e) { return e.name + ': ' + e.message; } };
         out.push(attempt(() => ops.op_required_two(1)));
         out.push(attempt(() => ops.op_required_two(1, 2)));
         function call(a, b) { return ops.op_required_two(a, b); }
         %PrepareFunctionForOptimization(call); call(1, 2); call(1, 2);
         %OptimizeFunctionOnNextCall(call); call(1, 2);
         out.push(attempt(() => ops.op_required_two()));
         out.push(attempt(() => ops.op_unnamed(1, 2, 3)));
         out.push(attempt(() => ops.op_unnamed(1, 's', 3)));
         const counter = new ops.Counter();
         out.push(attempt(() => counter.add()));
         out.push(attempt(() => counter.add(5)));",
    )
    .unwrap();
    tokio().block_on(rt.run_event_loop()).unwrap();
    assert_eq!(
        rt.execute_script_to_string("out.js", "out.join('|')")
            .unwrap(),
        "TypeError: op_required_two: 2 arguments required, but only 1 present|3|\
         TypeError: op_required_two: 2 arguments required, but only 0 present|\
         TypeError: op_unnamed: argument 2 must be a string, received a number|3|\
         TypeError: Counter.prototype.add: 1 argument required, but only 0 present|5|async 2|meta 5|true 11"
    );
}

#[test]
fn typed_and_arraybuffer_pointers_on_both_paths() {
    let mut rt = runtime_with(&[]);
    let out = rt
        .execute_script_to_string(
            "pointers.js",
            "const results = [];
             function run() {
               const b = new ArrayBuffer(3);
               ops.op_arraybuffer_ptr_fill(b, 3);
               return ops.op_typed_ptr_first(new Uint32Array([42, 1]), 2) + ':' + new Uint8Array(b).join();
             }
             %PrepareFunctionForOptimization(run); results.push(run()); results.push(run());
             %OptimizeFunctionOnNextCall(run); results.push(run());
             try { ops.op_typed_ptr_first(new Uint8Array(4), 1); } catch (e) { results.push(e.name + ': ' + e.message); }
             results.push(ops.op_typed_ptr_first(new Uint32Array(0), 0));
             results.join('|')",
        )
        .unwrap();
    assert_eq!(
        out,
        "42:7,7,7|42:7,7,7|42:7,7,7|TypeError: op_typed_ptr_first: argument 1 (values) must be a Uint32Array, received an object|0"
    );
}
