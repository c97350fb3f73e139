package org.agentworkspace.providers.codex;

import java.util.List;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderId;
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
import org.agentworkspace.providers.common.ProviderBase;

/**
 * OpenAI Codex. argv: {@code codex exec [resume] --json --skip-git-repo-check [-c key=value ...] [--model=M]
 * [--dangerously-bypass-approvals-and-sandbox] [ID] -- PROMPT}; stdin must be {@code /dev/null} (codex reads it to EOF
 * and appends it to the prompt). Everything that would otherwise need {@code config.toml} is passed as {@code -c}
 * overrides, so the user's {@code ~/.codex/config.toml} is never written: with a key or base URL the run uses a
 * provider entry {@code aw} ({@code wire_api="responses"}, key from {@code OPENAI_API_KEY}); analytics, feedback,
 * the plugin marketplace sync, OpenTelemetry export and the update check are off.
 */
public final class CodexProvider extends ProviderBase {

    static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";

    /** Install, key, config files, MCP, models, history and login of Codex (docs/providers.md, codex). */
    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ProviderId.CODEX.wireId(), "OpenAI Codex",
            Install.npm("codex", "@openai/codex", "0.169.0"),
            new Credentials("OPENAI_API_KEY", true),
            List.of(ConfigFile.of("config", "Codex configuration (config.toml)",
                            Location.home(".codex/config.toml"), FileFormat.TOML),
                    ConfigFile.of("instructions", "Global instructions (AGENTS.md)",
                            Location.home(".codex/AGENTS.md"), FileFormat.TEXT)),
            Mcp.of(McpShape.CODEX, Location.home(".codex/config.toml"), Location.project(".codex/config.toml"),
                    "mcp_servers", FileFormat.TOML),
            Models.of(ModelApi.OPENAI, "https://api.openai.com/v1",
                    new Model("gpt-5.5", "GPT-5.5", 400_000),
                    new Model("gpt-5.4", "GPT-5.4", 400_000),
                    new Model("gpt-5.4-mini", "GPT-5.4 mini", 400_000),
                    new Model("gpt-5.3-codex", "GPT-5.3 Codex", 400_000),
                    new Model("o4-mini", "o4-mini", 200_000)),
            HistoryFormat.CODEX,
            List.of(LoginCheck.jsonText(Location.home(".codex/auth.json"), "OPENAI_API_KEY"),
                    LoginCheck.jsonText(Location.home(".codex/auth.json"), "tokens", "refresh_token"),
                    LoginCheck.jsonText(Location.home(".codex/auth.json"), "tokens", "access_token")));

    public CodexProvider() {
        super(DESCRIPTOR, List.of("codex"), true);
    }

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        p.args("exec");
        if (spec.resumes()) {
            p.args("resume");
        }
        p.args("--json", "--skip-git-repo-check");
        config(p, "analytics.enabled", "false");
        config(p, "feedback.enabled", "false");
        config(p, "features.plugins", "false");
        config(p, "otel.exporter", toml("none"));
        config(p, "check_for_update_on_startup", "false");
        if (spec.credentials().hasApiKey() || spec.credentials().hasBaseUrl()) {
            String baseUrl = spec.credentials().hasBaseUrl() ? spec.credentials().baseUrl() : DEFAULT_BASE_URL;
            config(p, "model_provider", toml("aw"));
            config(p, "model_providers.aw.name", toml("aw"));
            config(p, "model_providers.aw.base_url", toml(baseUrl));
            config(p, "model_providers.aw.wire_api", toml("responses"));
            if (spec.credentials().hasApiKey()) {
                config(p, "model_providers.aw.env_key", toml("OPENAI_API_KEY"));
                p.secretEnv("OPENAI_API_KEY", spec.credentials().apiKey());
            }
        }
        if (spec.model() != null) {
            p.option("--model", spec.model());
        }
        switch (spec.permissionMode()) {
            case DEFAULT -> {
            }
            case ACCEPT_EDITS -> {
                // `exec resume` has no --sandbox flag; the config keys work for both
                config(p, "sandbox_mode", toml("workspace-write"));
                config(p, "approval_policy", toml("never"));
            }
            case BYPASS -> p.args("--dangerously-bypass-approvals-and-sandbox");
        }
        if (spec.resumes()) {
            p.args(spec.resumeSessionId());
        }
        p.args("--", spec.prompt());
    }

    private static void config(Plan p, String key, String tomlValue) {
        p.args("-c", key + "=" + tomlValue);
    }

    /** A TOML basic string (the values here are validated: no quotes, backslashes or control characters). */
    static String toml(String value) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    @Override
    public StreamParser newParser() {
        return new CodexStreamParser();
    }
}
