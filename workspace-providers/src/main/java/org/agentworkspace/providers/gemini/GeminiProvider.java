package org.agentworkspace.providers.gemini;

import java.nio.file.Path;
import java.util.List;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;
import org.agentworkspace.providers.common.ProviderBase;

/**
 * Google Gemini CLI. argv: {@code gemini -o stream-json [--model=M] [--resume=ID]
 * [--approval-mode=auto_edit|yolo] --prompt=PROMPT}.
 *
 * <p>Gemini's usage-statistics upload can only be switched off in a settings file, and its system settings file is
 * accepted only when owned by root. So gemini gets its own home, {@code GEMINI_CLI_HOME=<dataDir>/providers/gemini}
 * (settings, sessions and a login all live in {@code <dataDir>/providers/gemini/.gemini/}), with a settings file this
 * adapter owns and rewrites before every launch. The file has no secret and is the same for every run; the auth type
 * comes from the variable {@code AW_GEMINI_AUTH_TYPE} ({@code gemini-api-key} when a key is given, else the CLI's
 * Google login), because a custom base URL alone makes gemini pick the unsupported "gateway" auth type.
 */
public final class GeminiProvider extends ProviderBase {

    static final String SETTINGS = """
            {
              "security": {"auth": {"selectedType": "${AW_GEMINI_AUTH_TYPE:-oauth-personal}"}},
              "privacy": {"usageStatisticsEnabled": false},
              "telemetry": {"enabled": false},
              "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
            }
            """;

    public GeminiProvider() {
        super(ProviderId.GEMINI.wireId(), "Gemini CLI", List.of("gemini"), true);
    }

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        p.args("-o", "stream-json");
        if (spec.model() != null) {
            p.option("--model", spec.model());
        }
        if (spec.resumeSessionId() != null) {
            p.option("--resume", spec.resumeSessionId());
        }
        switch (spec.permissionMode()) {
            case DEFAULT -> {
            }
            case ACCEPT_EDITS -> p.option("--approval-mode", "auto_edit");
            case BYPASS -> p.option("--approval-mode", "yolo");
        }
        p.option("--prompt", spec.prompt());
        Path home = ctx.providerDir(id());
        p.file(home.resolve(".gemini").resolve("settings.json"), SETTINGS);
        p.env("GEMINI_CLI_HOME", home.toString());
        if (spec.credentials().hasApiKey()) {
            p.secretEnv("GEMINI_API_KEY", spec.credentials().apiKey());
            p.env("AW_GEMINI_AUTH_TYPE", "gemini-api-key");
        }
        if (spec.credentials().hasBaseUrl()) {
            p.env("GOOGLE_GEMINI_BASE_URL", spec.credentials().baseUrl());
        }
        p.env("GEMINI_TELEMETRY_ENABLED", "false");
        // the engine chose this project as the workspace; an untrusted folder stops a headless run
        p.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        // no second node process relaunched with a bigger heap
        p.env("GEMINI_CLI_NO_RELAUNCH", "true");
    }

    @Override
    public StreamParser newParser() {
        return new GeminiStreamParser();
    }
}
