// A well-behaved tenant: a module of its own, a JSON config, the host's API.
import { log } from "ext:host/api.js";
import { greeting } from "./lib/format.js";
import config from "./config.json" with { type: "json" };

export async function handle(event) {
  log(`greeting ${event.name}`);
  await new Promise((resolve) => setTimeout(resolve, 1));
  return greeting(config.salutation, event.name);
}
