//! `cargo run -p plugin_host`: loads the tenants shipped in `tenants/` (or those under the
//! directory given), lets each attack the host in turn, and reports how each attack ended and
//! that the well-behaved tenant kept answering.

use plugin_host::{demonstrate, shipped_tenants, tenant_dirs, Outcome, Tenant};

fn main() {
    let root = std::env::args_os()
        .nth(1)
        .map_or_else(shipped_tenants, Into::into);
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let dirs = tenant_dirs(&root).expect("the tenants' directory");
    // One thread: each tenant's server loop is a local task beside the calls.
    let local = tokio::task::LocalSet::new();
    local.block_on(&tokio, async {
        let mut tenants = Vec::new();
        for dir in dirs {
            tenants.push(Tenant::load(&dir).await.expect("a tenant's directory"));
        }
        for round in demonstrate(&tenants).await {
            let attack = match &round.attack {
                Outcome::Answered(answer) => format!("answered {answer:?}"),
                Outcome::Failed(error) => format!("failed: {error}"),
                Outcome::StoppedAtDeadline => "stopped at its deadline".to_owned(),
                Outcome::StoppedOutOfMemory => "stopped: out of its memory budget".to_owned(),
            };
            println!("{:<14} attack {attack}", round.tenant);
            println!(
                "{:<14} then  greeter {:?}, {} {:?}",
                "", round.greeter_after, round.tenant, round.served_after
            );
        }
        tenants.iter().for_each(Tenant::close);
    });
}
