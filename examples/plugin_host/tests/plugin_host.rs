//! The plugin host of this example, over its shipped tenants: every attack is stopped or
//! refused and reported, the well-behaved tenant answers after each, and each attacker serves
//! again (issue 38).

use plugin_host::{demonstrate, shipped_tenants, tenant_dirs, Outcome, Tenant};

#[test]
fn every_attack_is_stopped_and_every_tenant_serves_again() {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let local = tokio::task::LocalSet::new();
    let rounds = local.block_on(&tokio, async {
        let mut tenants = Vec::new();
        for dir in tenant_dirs(&shipped_tenants()).unwrap() {
            tenants.push(Tenant::load(&dir).await.unwrap());
        }
        let greeter = tenants.iter().find(|t| t.name() == "greeter").unwrap();
        assert_eq!(
            greeter.call("alice", false).await,
            Outcome::Answered("Hello, alice!".into())
        );
        assert_eq!(greeter.take_log(), ["greeting alice"]);
        let rounds = demonstrate(&tenants).await;
        tenants.iter().for_each(Tenant::close);
        rounds
    });
    // Each attacker, and a word its outcome must have (out of memory, deadline, or failed
    // with an error saying this).
    let expected = [
        ("buffer_hog", "memory|RangeError"),
        // Its own URL space has no outside: `../greeter` is `plugin:/greeter`, its own.
        ("escaper", "plugin:/greeter/config.json: no such file"),
        // Filling the heap ends in the last-resort collections V8 runs at its limit; on a busy
        // machine they can outlast the deadline. Either budget stops it.
        ("heap_hog", "memory|deadline"),
        ("huge_string", "memory"),
        ("ops_thief", "ext:core/ops is private"),
        ("proxy_thrower", "[object Proxy]"),
        ("sleeper", "deadline"),
        ("spinner", "deadline"),
        ("zero_reader", "plugin:/dev/zero: no such file"),
    ];
    let matches = |outcome: &Outcome, words: &str| {
        words.split('|').any(|word| match outcome {
            Outcome::StoppedOutOfMemory => word == "memory",
            Outcome::StoppedAtDeadline => word == "deadline",
            Outcome::Failed(error) => error.contains(word),
            Outcome::Answered(_) => false,
        })
    };
    assert_eq!(rounds.len(), expected.len(), "{rounds:#?}");
    // No host path reaches a tenant's errors.
    let host_path = shipped_tenants().to_string_lossy().into_owned();
    assert!(!format!("{rounds:?}").contains(&host_path), "{rounds:#?}");
    for (round, (tenant, words)) in rounds.iter().zip(expected) {
        assert_eq!(round.tenant, tenant);
        assert!(
            matches(&round.attack, words),
            "{tenant}'s attack: {:?}",
            round.attack
        );
        assert_eq!(
            round.greeter_after,
            Outcome::Answered("Hello, alice!".into()),
            "after {tenant}"
        );
        assert_eq!(
            round.served_after,
            Outcome::Answered(format!("{tenant} serves bob")),
            "{tenant} serves again"
        );
    }
}

#[test]
fn a_tenant_whose_module_never_finishes_loading_is_stopped_too() {
    let dir = std::env::temp_dir().join(format!("opwire-slow-start-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for top_level in [
        "for (;;) {}",
        "await new Promise((resolve) => setTimeout(resolve, 3600 * 1000));",
    ] {
        std::fs::write(
            dir.join("plugin.js"),
            format!("{top_level}\nexport function handle() {{ return 'never'; }}"),
        )
        .unwrap();
        let local = tokio::task::LocalSet::new();
        let tenant = local.block_on(&tokio, Tenant::load(&dir)).unwrap();
        let outcome = local.block_on(&tokio, tenant.call("bob", false));
        assert!(
            matches!(&outcome, Outcome::Failed(error) if error.contains("terminated")),
            "{top_level}: {outcome:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
