//! `cargo run -p runtime_core --features inspector-server --example devtools [-- ADDRESS]`:
//! a plugin's runtime served to Chrome DevTools (or VS Code's "attach" to port 9229). It waits
//! for a debugger, pauses on the plugin's first statement, then calls the plugin's `onEvent`
//! once a second for a minute: set a breakpoint in `file:///plugin/main.js` and watch the
//! calls stop there. Open `chrome://inspect` (the target is listed under "Remote Target" for
//! `localhost:9229`), or the `devtools://` URL it prints. It gives up waiting after five
//! minutes.

use std::rc::Rc;
use std::time::Duration;

use runtime_core::inspector::InspectorServer;
use runtime_core::modules::{ModuleSource, StaticModuleLoader};
use runtime_core::{Runtime, RuntimeOptions};

const PLUGIN: &str = "file:///plugin/main.js";

fn main() {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9229".into());
    let mut runtime = Runtime::new(RuntimeOptions {
        module_loader: Some(Rc::new(StaticModuleLoader::new([(
            PLUGIN.to_owned(),
            ModuleSource::js(
                "let seen = 0;\n\
                 export function onEvent(name) {\n\
                 \x20 seen += 1;\n\
                 \x20 console.log(`event ${seen}: ${name}`);\n\
                 \x20 return seen;\n\
                 }\n",
            ),
        )]))),
        // Made before the plugin compiles: DevTools lists its source.
        inspector: true,
        ..Default::default()
    });
    let server = InspectorServer::start(runtime.inspector(), address.as_str(), "opwire plugin")
        .expect("the inspector's address is free");
    println!("Debugger listening on {}", server.websocket_url());
    println!("Open chrome://inspect, or {}", server.devtools_url());
    let termination = runtime.termination_handle();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(300));
        termination.terminate();
    });
    runtime.wait_for_debugger(true);
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    tokio.block_on(async {
        let id = runtime
            .load_main_module(PLUGIN)
            .await
            .expect("the plugin loads");
        runtime
            .mod_evaluate(id)
            .await
            .expect("the plugin evaluates");
        let on_event = runtime.module_function(id, "onEvent").expect("onEvent");
        for _ in 0..60 {
            match runtime.call_and_await::<u32>(&on_event, ("tick",)).await {
                Ok(_) => {}
                Err(error) => {
                    println!("{error}");
                    return;
                }
            }
            // The loop serves the debugger while it waits.
            let pause = tokio::time::sleep(Duration::from_secs(1));
            let _ = runtime.run_until(pause).await;
        }
    });
}
