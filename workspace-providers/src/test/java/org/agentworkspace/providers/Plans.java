package org.agentworkspace.providers;

import java.nio.file.Path;
import java.util.Map;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.RunSpec;

/** Fixed inputs for plan tests. */
final class Plans {

    static final Path BIN_DIR = Path.of("/opt/aw/cli-bin/node_modules/.bin");
    static final Path PROJECT = Path.of("/srv/projects/demo");
    static final Path DATA = Path.of("/var/lib/aw");
    static final LaunchContext CTX = new LaunchContext(DATA, Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME",
            "/home/aw", "LANG", "C.UTF-8"), false);
    static final LaunchContext ROOT_CTX = new LaunchContext(DATA, CTX.baseEnv(), true);

    private Plans() {
    }

    static AgentProvider provider(String id) {
        return AgentProviders.load().find(id).orElseThrow(() -> new AssertionError("no provider " + id));
    }

    static LaunchPlan plan(String id, RunSpec spec) {
        AgentProvider p = provider(id);
        return p.plan(spec, BIN_DIR.resolve(p.binaryNames().get(0)), CTX);
    }

    static RunSpec.Builder spec(String prompt) {
        return RunSpec.builder(prompt, PROJECT);
    }
}
