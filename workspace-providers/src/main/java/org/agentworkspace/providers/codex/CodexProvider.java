package org.agentworkspace.providers.codex;

import java.util.List;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderId;
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

    public CodexProvider() {
        super(ProviderId.CODEX.wireId(), "Codex", List.of("codex"), true);
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
