package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A key stored for one provider reaches only that provider's children: first in the launch plans built from the
 * store, then in the environments of real child processes (the fake CLIs), read from {@code /proc/<pid>/environ}
 * while they run, and from what each fake reports with {@code AW_FAKE_ECHO_ENV}.
 */
class CredentialIsolationTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Each provider's key variable (docs/providers.md). */
    static final Map<String, String> KEY_VARIABLE = Map.of(
            "claude", "ANTHROPIC_API_KEY", "codex", "OPENAI_API_KEY", "gemini", "GEMINI_API_KEY",
            "qwen", "OPENAI_API_KEY", "opencode", "AW_OPENCODE_API_KEY", "cursor", "CURSOR_API_KEY",
            "grok", "GROK_API_KEY");
    private static final List<String> ALL_KEY_VARIABLES = List.of("ANTHROPIC_API_KEY", "OPENAI_API_KEY",
            "GEMINI_API_KEY", "AW_OPENCODE_API_KEY", "CURSOR_API_KEY", "GROK_API_KEY", "ANTHROPIC_AUTH_TOKEN",
            "NODE_OPTIONS", "LD_PRELOAD");

    private final ProvidersFixture f = new ProvidersFixture();
    private final Map<String, String> keys = new LinkedHashMap<>();
    private Path project;

    @BeforeEach
    void storeAKeyForEveryProvider() throws Exception {
        FakeClis.install(f.bin);
        f.env.put("PATH", f.bin + ":/usr/bin:/bin");
        // the server's own environment holds other secrets: none may reach any child
        f.env.put("ANTHROPIC_API_KEY", "sk-server-env-anthropic-DO-NOT-LEAK");
        f.env.put("OPENAI_API_KEY", "sk-server-env-openai-DO-NOT-LEAK");
        f.env.put("NODE_OPTIONS", "--require /tmp/evil.js");
        f.env.put("LD_PRELOAD", "/tmp/evil.so");
        project = Files.createDirectories(f.root.resolve("project"));
        // the base URLs name the discard port on loopback: allowed as an administrator would (--outbound-allow)
        f.pm().credentials().useOutboundPolicy(org.agentworkspace.core.network.OutboundPolicy.create(
                java.util.Set.of("127.0.0.1:9"), org.agentworkspace.core.network.OutboundPolicy.SYSTEM));
        for (ProviderFacts p : ProviderCatalog.load().all()) {
            String key = "sk-" + p.id() + "-stored-key-" + Integer.toHexString(p.id().hashCode()) + "-END";
            keys.put(p.id(), key);
            f.pm().credentials().save(p.id(), key, p.baseUrlAllowed() ? "http://127.0.0.1:9/" + p.id() : null, null);
        }
    }

    @AfterEach
    void close() {
        f.close();
    }

    private LaunchPlan plan(String provider) {
        return f.pm().plan(provider, "Say hello [[mock:reply text=\"hi\"]]", project, b -> {
            b.model(provider.equals("opencode") ? "mock-model" : null);
            b.extraEnv("AW_FAKE_ECHO_ENV", String.join(",", ALL_KEY_VARIABLES));
            b.extraEnv("AW_FAKE_DELAY_MS", "40");
            return b;
        });
    }

    @Test
    void eachPlanHoldsOnlyItsOwnKey() {
        for (String provider : keys.keySet()) {
            LaunchPlan plan = plan(provider);
            String own = keys.get(provider);
            String variable = KEY_VARIABLE.get(provider);
            assertEquals(own, plan.env().get(variable), provider);
            assertTrue(plan.secretEnv().contains(variable), provider);
            assertEquals(f.bin.resolve(FakeClis.BINARIES.get(provider)).toString(), plan.argv().getFirst(),
                    "the plan runs the binary the status reports");
            String everything = plan.env() + " " + plan.argv() + " " + plan.files();
            for (Map.Entry<String, String> other : keys.entrySet()) {
                if (!other.getKey().equals(provider)) {
                    assertFalse(everything.contains(other.getValue()), provider + " got " + other.getKey() + "'s key");
                }
            }
            assertFalse(everything.contains("DO-NOT-LEAK"), provider + " got a key of the server's environment");
            assertFalse(plan.env().containsKey("NODE_OPTIONS") || plan.env().containsKey("LD_PRELOAD"), provider);
            assertFalse(plan.toString().contains(own), "toString masks the key");
        }
    }

    @Test
    void eachChildProcessSeesOnlyItsOwnKey() throws Exception {
        for (String provider : keys.keySet()) {
            LaunchPlan plan = plan(provider);
            for (Map.Entry<Path, String> file : plan.files().entrySet()) {
                Files.createDirectories(file.getKey().getParent());
                Files.writeString(file.getKey(), file.getValue());
            }
            ProcessBuilder pb = new ProcessBuilder(plan.argv()).directory(plan.workingDir().toFile());
            pb.environment().clear();
            pb.environment().putAll(plan.env());
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.redirectErrorStream(true);
            Process p = pb.start();
            Map<String, String> seen = environ(p.pid(), Path.of(plan.argv().getFirst()).getFileName().toString());
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));

            String own = keys.get(provider);
            String variable = KEY_VARIABLE.get(provider);
            assertEquals(own, seen.get(variable), provider + " child environment: " + seen.keySet());
            for (Map.Entry<String, String> other : keys.entrySet()) {
                if (!other.getKey().equals(provider)) {
                    assertFalse(seen.containsValue(other.getValue()), provider + " child saw " + other.getKey());
                }
            }
            assertFalse(seen.values().stream().anyMatch(v -> v.contains("DO-NOT-LEAK")), provider);
            assertFalse(seen.containsKey("NODE_OPTIONS") || seen.containsKey("LD_PRELOAD"), provider);

            JsonNode echo = JSON.readTree(out.lines().filter(l -> l.contains("aw_fake_env")).findFirst()
                    .orElseThrow(() -> new AssertionError(provider + ": no aw_fake_env line in " + out)));
            List<String> set = new ArrayList<>();
            echo.path("set").forEach(n -> set.add(n.asText()));
            assertEquals(List.of(variable), set, provider + " reports which key variables it saw");
        }
    }

    /** The environment of a running process, as the kernel holds it. */
    private static Map<String, String> environ(long pid, String binary) throws Exception {
        Path file = Path.of("/proc/" + pid + "/environ");
        Path cmdline = Path.of("/proc/" + pid + "/cmdline");
        byte[] raw = null;
        for (int i = 0; i < 200 && raw == null; i++) {
            try {
                // once the program itself runs (not the JVM's spawn helper), its environment is the one it was given
                if (new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).contains(binary)) {
                    raw = Files.readAllBytes(file);
                } else {
                    Thread.sleep(5);
                }
            } catch (java.io.IOException e) {
                Thread.sleep(5);
            }
        }
        if (raw == null) {
            throw new AssertionError("cannot read " + file);
        }
        Map<String, String> env = new TreeMap<>();
        for (String kv : new String(raw, StandardCharsets.UTF_8).split("\0")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                env.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return env;
    }
}
