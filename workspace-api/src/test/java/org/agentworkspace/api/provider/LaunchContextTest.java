package org.agentworkspace.api.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LaunchContextTest {

    @Test
    void keepsOnlyTheAllowListedVariables() {
        Map<String, String> server = new HashMap<>();
        server.put("PATH", "/usr/bin:.:/bin");
        server.put("HOME", "/home/aw");
        server.put("LANG", "C.UTF-8");
        server.put("ANTHROPIC_API_KEY", "server-secret");
        server.put("OPENAI_API_KEY", "server-secret");
        server.put("AW_JWT_SECRET", "server-secret");
        server.put("NODE_OPTIONS", "--require /tmp/evil.js");
        server.put("LD_PRELOAD", "/tmp/evil.so");
        LaunchContext ctx = LaunchContext.create(Path.of("/var/lib/aw"), server);
        assertEquals(Set.of("PATH", "HOME", "LANG"), ctx.baseEnv().keySet());
        assertFalse(ctx.baseEnv().containsValue("server-secret"));
        assertEquals(List.of(Path.of("/usr/bin"), Path.of("/bin")), ctx.pathDirectories(), "relative entries dropped");
        assertEquals("/home/aw", ctx.home().orElseThrow());
        assertEquals(Path.of("/var/lib/aw/providers/gemini"), ctx.providerDir("gemini"));
    }

    @Test
    void launchPlanRedactsSecretsInToString() {
        LaunchPlan plan = new LaunchPlan(List.of("/bin/true", "--", "hi"), Map.of("KEY", "sk-secret", "HOME", "/h"),
                Path.of("/p"), true, Map.of(), Set.of("KEY"));
        assertFalse(plan.toString().contains("sk-secret"), plan.toString());
        assertEquals("***", plan.redactedEnv().get("KEY"));
        assertEquals("sk-secret", plan.env().get("KEY"));
        assertTrue(plan.toString().contains("/bin/true"));
    }
}
