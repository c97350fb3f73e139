package org.agentworkspace.server.providers.acme;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.api.provider.ProviderDescriptor.ConfigFile;
import org.agentworkspace.api.provider.ProviderDescriptor.Credentials;
import org.agentworkspace.api.provider.ProviderDescriptor.FileFormat;
import org.agentworkspace.api.provider.ProviderDescriptor.HistoryFormat;
import org.agentworkspace.api.provider.ProviderDescriptor.Install;
import org.agentworkspace.api.provider.ProviderDescriptor.Location;
import org.agentworkspace.api.provider.ProviderDescriptor.LoginCheck;
import org.agentworkspace.api.provider.ProviderDescriptor.Mcp;
import org.agentworkspace.api.provider.ProviderDescriptor.McpShape;
import org.agentworkspace.api.provider.ProviderDescriptor.Model;
import org.agentworkspace.api.provider.ProviderDescriptor.ModelApi;
import org.agentworkspace.api.provider.ProviderDescriptor.Models;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;

/**
 * A provider that exists only in this test: "Acme Agent", binary {@code acme}, npm package {@code acme-agent}. It is
 * written the way a provider outside workspace-providers must be (the API only: {@link AgentProvider},
 * {@link StreamParser}, {@link ProviderDescriptor}). Its CLI is the testkit's fake of grok installed as {@code acme}:
 * argv {@code acme [--model=M] --prompt=PROMPT}, one JSON object per line ({@code {"role":..., "content":...}}).
 */
public final class AcmeProvider implements AgentProvider {
    public static final String ID = "acme";
    public static final String KEY_VARIABLE = "ACME_API_KEY";
    public static final String TESTED_VERSION = "0.8.0";

    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ID, "Acme Agent",
            Install.npm("acme", "acme-agent", TESTED_VERSION),
            new Credentials(KEY_VARIABLE, false),
            List.of(ConfigFile.of("settings", "Acme settings (settings.json)", Location.home(".acme/settings.json"),
                    FileFormat.JSON)),
            Mcp.of(McpShape.PLAIN, Location.home(".acme/settings.json"), Location.project(".acme/settings.json"),
                    "mcpServers", FileFormat.JSON),
            Models.of(ModelApi.OPENAI, "https://api.acme.invalid/v1", new Model("acme-1", "Acme One", 128_000),
                    new Model("acme-1-mini", "Acme One mini", null)),
            HistoryFormat.NONE,
            List.of(LoginCheck.jsonText(Location.home(".acme/auth.json"), "token")));

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String displayName() {
        return DESCRIPTOR.displayName();
    }

    @Override
    public List<String> binaryNames() {
        return List.of("acme");
    }

    @Override
    public boolean supportsResume() {
        return false;
    }

    @Override
    public ProviderDescriptor descriptor() {
        return DESCRIPTOR;
    }

    /** The context's variables, the key in its own variable only, the spec's extra variables; nothing else. */
    @Override
    public LaunchPlan plan(RunSpec spec, Path binary, LaunchContext ctx) {
        Objects.requireNonNull(binary, "binary");
        if (spec.resumes()) {
            throw WorkspaceException.Validation.of("Acme Agent has no sessions to resume");
        }
        List<String> argv = new ArrayList<>(List.of(binary.toString()));
        if (spec.model() != null) {
            argv.add("--model=" + spec.model());
        }
        argv.add("--prompt=" + spec.prompt());
        Map<String, String> env = new LinkedHashMap<>(ctx.baseEnv());
        env.put("PATH", binary.getParent() + ":" + ctx.baseEnv().getOrDefault("PATH", "/usr/bin:/bin"));
        if (spec.credentials().hasApiKey()) {
            env.put(KEY_VARIABLE, spec.credentials().apiKey());
        }
        env.putAll(spec.extraEnv());
        return new LaunchPlan(argv, env, spec.projectDir(), true, Map.of(), Set.of(KEY_VARIABLE));
    }

    @Override
    public StreamParser newParser() {
        return new Parser();
    }

    /** {@code {"role":"assistant","content":...}} lines; anything else is reported as unrecognized. */
    static final class Parser implements StreamParser {
        private static final ObjectMapper JSON = new ObjectMapper();
        private String last;

        @Override
        public List<AgentEvent> parse(String line) {
            if (line.isBlank()) {
                return List.of();
            }
            JsonNode n;
            try {
                n = JSON.readTree(line);
            } catch (java.io.IOException e) {
                return List.of(new AgentEvent.Unrecognized(line, "not JSON"));
            }
            String role = n.path("role").asText("");
            String content = n.path("content").asText(null);
            if (content != null && role.equals("assistant")) {
                last = content;
                return List.of(new AgentEvent.Message(AgentEvent.Role.ASSISTANT, content));
            }
            if (content != null && role.equals("user")) {
                return List.of(new AgentEvent.Message(AgentEvent.Role.USER, content));
            }
            return List.of(new AgentEvent.Unrecognized(line, "unknown acme line"));
        }

        @Override
        public List<AgentEvent> finish(int exitCode) {
            return List.of(new AgentEvent.Completed(exitCode == 0, null, last));
        }
    }
}
