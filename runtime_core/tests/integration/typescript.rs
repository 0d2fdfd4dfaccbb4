//! The declarations a runtime gives its tenants, type-checked by the real `tsc`: globals that
//! merge with TypeScript's DOM library (`TS2403` on `console` before), no `ops` namespace when
//! `expose_ops: false` hid it (declared before), and `declare module` blocks for an
//! extension's public `ext:` modules (none before).

use crate::common;

use runtime_core::{op, Extension, ExtensionSource, Runtime, RuntimeOptions};

/// Doubles `x`.
#[op(fast)]
fn op_double(x: u32) -> u32 {
    x * 2
}

const GREET_JS: &str = "import { op_double } from 'ext:core/ops';\n\
                        export function quadruple(x) { return op_double(op_double(x)); }";
const GREET_DTS: &str = "/** Multiplies by four. */\nexport function quadruple(x: number): number;";

const MODULES: &[ExtensionSource] = &[
    ExtensionSource::new("ext:greet/mod.js", GREET_JS),
    ExtensionSource::new("ext:greet/private.js", "export const secret = 1;"),
];
const DECLARATIONS: &[ExtensionSource] = &[
    ExtensionSource::new("ext:greet/mod.js", GREET_DTS),
    ExtensionSource::new("ext:greet/private.js", "export const secret: number;"),
];

fn runtime() -> Runtime {
    Runtime::new(RuntimeOptions {
        extensions: vec![Extension::new("greet")
            .ops(&[op_double::DECL])
            .esm(MODULES)
            .esm_public(&["ext:greet/mod.js"])
            .esm_typescript(DECLARATIONS)],
        expose_ops: false,
        ..Default::default()
    })
}

const HANDLER: &str = "\
import { quadruple } from 'ext:greet/mod.js';\n\
export function handle(n: number): string {\n\
  const id = setTimeout(() => console.log('late', n), 10);\n\
  clearTimeout(id);\n\
  console.error('handling', n);\n\
  return String(quadruple(n));\n\
}\n";

#[test]
fn a_tenants_handler_type_checks_against_what_the_runtime_gives_it() {
    let runtime = runtime();
    let dts = runtime.typescript_declarations();
    assert!(!dts.contains("declare namespace ops"), "{dts}");
    assert!(dts.contains("declare module \"ext:greet/mod.js\""), "{dts}");
    assert!(!dts.contains("ext:greet/private.js"), "{dts}");
    let Some(tsc) = common::tsc() else { return };
    for lib in ["es2022", "es2022,dom"] {
        common::type_check_with(&tsc, "handler", &dts, HANDLER, lib)
            .unwrap_or_else(|report| panic!("lib {lib}: {report}\n--- runtime.d.ts\n{dts}"));
    }
    // What the runtime does not give is an error: the hidden ops, a private module, a wrong
    // argument.
    for wrong in [
        "ops.op_double(1);\nexport {};\n",
        "import { secret } from 'ext:greet/private.js';\nexport const s = secret;\n",
        "import { quadruple } from 'ext:greet/mod.js';\nquadruple('four');\n",
    ] {
        assert!(
            common::type_check_with(&tsc, "wrong", &dts, wrong, "es2022").is_err(),
            "{wrong}"
        );
    }
}
