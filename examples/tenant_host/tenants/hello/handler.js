// A well-behaved tenant: a module of its own, a JSON config, its own URL.
import { greeting } from "./lib/format.js";
import config from "./config.json" with { type: "json" };

export default async function handle(request) {
  await new Promise((resolve) => setTimeout(resolve, 1));
  const name = request.path.slice(1) || "world";
  return {
    status: 200,
    headers: { "content-type": "text/plain" },
    body: `${greeting(config.salutation, name)} (${import.meta.url})`,
  };
}
