package org.agentworkspace.providers.gemini;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * Google Gemini CLI. argv: {@code gemini -o stream-json [--model=M] [--resume=ID]
 * [--approval-mode=auto_edit|yolo] --prompt=PROMPT}.
 *
 * <p>Gemini's usage-statistics upload can only be switched off in a settings file, and its system settings file is
 * accepted only when owned by root. So gemini gets its own home, {@code GEMINI_CLI_HOME=<dataDir>/providers/gemini}
 * (settings, sessions and a login all live in {@code <dataDir>/providers/gemini/.gemini/}), with a settings file this
 * adapter owns and rewrites before every launch. The file has no secret and is the same for every run; the auth type
 * comes from the variable {@code AW_GEMINI_AUTH_TYPE} ({@code gemini-api-key} when a key is given, else the CLI's
 * Google login), because a custom base URL alone makes gemini pick the unsupported "gateway" auth type.
 *
 * <p>The same file is gemini's user settings, which the service's config editor and MCP editor also write
 * ({@code mcpServers}, the user's own settings): when it exists and holds a JSON object, the plan keeps its content
 * and sets only the keys above; otherwise it is {@link #SETTINGS}.
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

    /**
     * Install, key, config files, MCP, models, history and login of the Gemini CLI (docs/providers.md, gemini). Its
     * user files lie in its own home, {@code GEMINI_CLI_HOME=<dataDir>/providers/gemini}.
     */
    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ProviderId.GEMINI.wireId(), "Gemini CLI",
            Install.npm("gemini", "@google/gemini-cli", "0.61.0"),
            new Credentials("GEMINI_API_KEY", true),
            List.of(ConfigFile.of("settings", "Gemini CLI settings (settings.json in the service's gemini home)",
                            Location.providerDir(".gemini/settings.json"), FileFormat.JSON_WITH_COMMENTS),
                    ConfigFile.of("instructions", "Global context (GEMINI.md)",
                            Location.providerDir(".gemini/GEMINI.md"), FileFormat.TEXT),
                    ConfigFile.of("env", "Environment file (.env)",
                            Location.providerDir(".gemini/.env"), FileFormat.ENV)),
            Mcp.of(McpShape.PLAIN, Location.providerDir(".gemini/settings.json"),
                    Location.project(".gemini/settings.json"), "mcpServers", FileFormat.JSON_WITH_COMMENTS),
            Models.of(ModelApi.GEMINI, "https://generativelanguage.googleapis.com",
                    new Model("auto", "Auto (router)", null),
                    new Model("gemini-3.1-pro-preview", "Gemini 3.1 Pro (preview)", 1_048_576),
                    new Model("gemini-2.5-pro", "Gemini 2.5 Pro", 1_048_576),
                    new Model("gemini-2.5-flash", "Gemini 2.5 Flash", 1_048_576),
                    new Model("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 1_048_576)),
            HistoryFormat.GEMINI,
            List.of(LoginCheck.jsonText(Location.providerDir(".gemini/oauth_creds.json"), "refresh_token"),
                    LoginCheck.jsonText(Location.providerDir(".gemini/oauth_creds.json"), "access_token")));

    public GeminiProvider() {
        super(DESCRIPTOR, List.of("gemini"), true);
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
        Path settings = home.resolve(".gemini").resolve("settings.json");
        p.file(settings, settings(settings));
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

    private static final JsonMapper LENIENT = org.agentworkspace.providers.common.Json.builder()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .build();

    /** {@link #SETTINGS} merged over the existing settings file, which keeps everything else it holds. */
    static String settings(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > (1 << 20)) {
                return SETTINGS;
            }
            JsonNode existing = LENIENT.readTree(Files.readString(file, StandardCharsets.UTF_8));
            if (!(existing instanceof ObjectNode merged)) {
                return SETTINGS;
            }
            ObjectNode owned = (ObjectNode) LENIENT.readTree(SETTINGS);
            deepSet(merged, owned);
            return LENIENT.writerWithDefaultPrettyPrinter().writeValueAsString(merged) + "\n";
        } catch (IOException | RuntimeException e) {
            return SETTINGS;
        }
    }

    private static void deepSet(ObjectNode target, ObjectNode values) {
        values.properties().forEach(e -> {
            JsonNode current = target.get(e.getKey());
            if (e.getValue() instanceof ObjectNode sub && current instanceof ObjectNode cur) {
                deepSet(cur, sub);
            } else {
                target.set(e.getKey(), e.getValue().deepCopy());
            }
        });
    }

    @Override
    public StreamParser newParser() {
        return new GeminiStreamParser();
    }
}
