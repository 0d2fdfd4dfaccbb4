//! TypeScript in the loader (the `typescript` feature): `.ts`, `.mts` and `.tsx` modules
//! transpiled by `FsModuleLoader::typescript`, their stacks pointing at the TypeScript lines,
//! and what a broken module says. A binary of its own: only built with its feature.

#[path = "common/mod.rs"]
mod common;

use std::rc::Rc;

use common::{run_main, tenant_dir};
use runtime_core::modules::FsModuleLoader;
use runtime_core::{Runtime, RuntimeOptions};

/// Loads `main` with `loader`, evaluates it, and returns `globalThis.out`, or the error.
fn run(loader: FsModuleLoader, main: &str) -> Result<String, String> {
    let mut rt = Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(loader)),
        ..Default::default()
    });
    run_main(&mut rt, main, "")
}

const MAIN: &str = "import { Color, Store } from './lib/store.ts';
interface Reply { status: number; body: string }
const store = new Store<number>(2);
store.set('a', Color.Green);
function fail(reason: string): never {
  throw new Error(reason);
}
let stack = '';
try { fail('typed'); } catch (e) { stack = String((e as Error).stack); }
const reply: Reply = { status: 200, body: `${store.get('a')} ${Color[1]}` };
globalThis.out = `${reply.status} ${reply.body}|${stack}`;
";
const STORE: &str = "export enum Color { Red, Green }
export namespace Limits { export const max = 10; }
export class Store<V> {
  private items = new Map<string, V>();
  constructor(private readonly limit: number = Limits.max) {}
  get(key: string): V | undefined { return this.items.get(key); }
  set(key: string, value: V): this { this.items.set(key, value); return this; }
}
";

#[test]
fn typescript_modules_run_and_their_stacks_point_at_the_typescript() {
    runtime_core::init_v8();
    let dir = tenant_dir("run", &[("main.ts", MAIN), ("lib/store.ts", STORE)]);
    let loader = FsModuleLoader::new(&dir)
        .unwrap()
        .url_space("tenant-a:/")
        .unwrap()
        .typescript(true);
    let out = run(loader, "tenant-a:/main.ts").unwrap();
    let (value, stack) = out.split_once('|').unwrap();
    assert_eq!(value, "200 1 Green");
    // `throw` is on line 6 of main.ts, column 9.
    assert!(
        stack.contains("at fail (tenant-a:/main.ts:6:9)"),
        "the stack does not point at the TypeScript: {stack}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn typescript_is_loaded_only_when_the_host_asks() {
    runtime_core::init_v8();
    let dir = tenant_dir("off", &[("main.ts", MAIN), ("lib/store.ts", STORE)]);
    let loader = FsModuleLoader::new(&dir)
        .unwrap()
        .url_space("tenant-a:/")
        .unwrap();
    let error = run(loader, "tenant-a:/main.ts").unwrap_err();
    assert!(error.contains("SyntaxError"), "{error}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn broken_typescript_is_an_error_naming_the_module() {
    runtime_core::init_v8();
    let dir = tenant_dir(
        "broken",
        &[
            ("main.ts", "import './bad.ts';"),
            ("bad.ts", "let x: = 1;\n"),
            ("huge.ts", &"let x: number = 1;\n".repeat(10)),
        ],
    );
    let loader = FsModuleLoader::new(&dir)
        .unwrap()
        .url_space("tenant-a:/")
        .unwrap()
        .typescript(true);
    let error = run(loader.clone(), "tenant-a:/main.ts").unwrap_err();
    assert!(error.contains("tenant-a:/bad.ts"), "{error}");
    assert!(error.contains("not valid TypeScript"), "{error}");
    // The size limit holds before anything is parsed.
    let error = run(loader.max_module_size(64), "tenant-a:/huge.ts").unwrap_err();
    assert!(error.contains("limit"), "{error}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A tenant's module nested as deep as its size allows, in each of the constructs that cost
/// the parser the most stack: transpiled or refused, the process kept; past the size limit,
/// refused before it is parsed.
#[test]
fn deeply_nested_typescript_is_refused_or_run_never_a_crash() {
    runtime_core::init_v8();
    let limit = 128 << 10;
    for (open, close) in [
        ("(", ")"),
        ("[", "]"),
        ("f(", ")"),
        ("`${", "}`"),
        ("{a:", "}"),
        ("Array<", ">"),
    ] {
        for size in [limit, 4 * limit] {
            let depth = (size - 40) / (open.len() + close.len());
            let body = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            let source = if open == "Array<" {
                format!("type X = {};", body.replace('1', "number"))
            } else {
                format!("export const x = {body};")
            };
            let dir = tenant_dir("deep", &[("main.ts", &source)]);
            let loader = FsModuleLoader::new(&dir)
                .unwrap()
                .url_space("tenant-a:/")
                .unwrap()
                .typescript(true);
            let outcome = run(loader, "tenant-a:/main.ts");
            if source.len() > limit {
                let error = outcome.unwrap_err();
                assert!(error.contains("larger than"), "{open}: {error}");
            }
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}
