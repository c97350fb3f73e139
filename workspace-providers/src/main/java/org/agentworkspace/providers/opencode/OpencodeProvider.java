package org.agentworkspace.providers.opencode;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.agentworkspace.api.WorkspaceException;
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
import org.agentworkspace.providers.common.Json;
import org.agentworkspace.providers.common.ProviderBase;

/**
 * opencode. argv: {@code opencode run --format json [--model=PROVIDER/MODEL] [--session=ID] [--auto] -- PROMPT}.
 *
 * <p>opencode talks to many model vendors, so the credential is attached to the vendor of the run's model through
 * {@code OPENCODE_CONFIG_CONTENT} (merged over the user's config; the user's files are never written): the key as
 * {@code {env:AW_OPENCODE_API_KEY}} in {@code provider.<vendor>.options.apiKey}, the base URL as
 * {@code options.baseURL}. A base URL with a model without a vendor prefix defines an OpenAI-compatible vendor
 * {@code aw} for that model (and uses it for the title call too). A key without a model goes to {@code anthropic}.
 */
public final class OpencodeProvider extends ProviderBase {

    static final String CUSTOM_VENDOR = "aw";
    static final String DEFAULT_VENDOR = "anthropic";

    /**
     * Install, key, config files, MCP, models, history and login of opencode (docs/providers.md, opencode). A key
     * alone lists Anthropic's models, named {@code anthropic/<model>}; a base URL is an OpenAI-compatible vendor
     * whose models a run names bare.
     */
    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ProviderId.OPENCODE.wireId(), "opencode",
            Install.npm("opencode", "opencode-ai", "1.18.33"),
            new Credentials("AW_OPENCODE_API_KEY", true),
            List.of(ConfigFile.of("config", "opencode global config (opencode.json)",
                            Location.xdgConfig("opencode/opencode.json"), FileFormat.JSON_WITH_COMMENTS),
                    ConfigFile.of("instructions", "Global rules (AGENTS.md)",
                            Location.xdgConfig("opencode/AGENTS.md"), FileFormat.TEXT)),
            Mcp.of(McpShape.OPENCODE, Location.xdgConfig("opencode/opencode.json"), Location.project("opencode.json"),
                    "mcp", FileFormat.JSON_WITH_COMMENTS),
            new Models(ModelApi.ANTHROPIC, "https://api.anthropic.com", "anthropic/", ModelApi.OPENAI, List.of(
                    new Model("opencode/big-pickle", "OpenCode Zen: Big Pickle", null),
                    new Model("anthropic/claude-sonnet-4-5", "Anthropic: Claude Sonnet 4.5", 200_000),
                    new Model("openai/gpt-5.4", "OpenAI: GPT-5.4", 400_000),
                    new Model("google/gemini-2.5-pro", "Google: Gemini 2.5 Pro", 1_048_576))),
            HistoryFormat.OPENCODE,
            List.of(LoginCheck.nonEmptyJsonObject(Location.xdgData("opencode/auth.json"))));

    public OpencodeProvider() {
        super(DESCRIPTOR, List.of("opencode"), true);
    }

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        String model = spec.model();
        boolean hasKey = spec.credentials().hasApiKey();
        boolean hasUrl = spec.credentials().hasBaseUrl();
        int slash = model == null ? -1 : model.indexOf('/');
        if (model != null && slash < 0 && !hasUrl) {
            throw WorkspaceException.Validation.of("opencode models are written provider/model");
        }
        if (model == null && hasUrl) {
            throw WorkspaceException.Validation.of("opencode needs a model to use a custom base URL");
        }
        ObjectNode cfg = Json.object();
        cfg.put("autoupdate", false);
        cfg.put("share", "disabled");
        String vendor = slash > 0 ? model.substring(0, slash) : hasUrl ? CUSTOM_VENDOR : hasKey ? DEFAULT_VENDOR : null;
        String qualifiedModel = model == null ? null : slash > 0 ? model : CUSTOM_VENDOR + "/" + model;
        if (vendor != null && (hasKey || hasUrl)) {
            ObjectNode entry = cfg.putObject("provider").putObject(vendor);
            if (vendor.equals(CUSTOM_VENDOR) && slash < 0) {
                entry.put("npm", "@ai-sdk/openai-compatible");
                entry.put("name", CUSTOM_VENDOR);
                entry.putObject("models").putObject(model);
                cfg.put("model", qualifiedModel);
                cfg.put("small_model", qualifiedModel);
            }
            ObjectNode options = entry.putObject("options");
            if (hasUrl) {
                options.put("baseURL", spec.credentials().baseUrl());
            }
            if (hasKey) {
                options.put("apiKey", "{env:AW_OPENCODE_API_KEY}");
                p.secretEnv("AW_OPENCODE_API_KEY", spec.credentials().apiKey());
            }
        }
        if (spec.permissionMode() == org.agentworkspace.api.provider.PermissionMode.ACCEPT_EDITS) {
            cfg.putObject("permission").put("edit", "allow");
        }
        p.args("run", "--format", "json");
        if (qualifiedModel != null) {
            p.option("--model", qualifiedModel);
        }
        if (spec.resumeSessionId() != null) {
            p.option("--session", spec.resumeSessionId());
        }
        if (spec.permissionMode() == org.agentworkspace.api.provider.PermissionMode.BYPASS) {
            // approves every permission request that is not explicitly denied (run mode rejects them otherwise)
            p.args("--auto");
        }
        p.args("--", spec.prompt());
        p.env("OPENCODE_CONFIG_CONTENT", Json.write(cfg));
        p.env("OPENCODE_DISABLE_AUTOUPDATE", "1");
        p.env("OPENCODE_DISABLE_SHARE", "1");
        p.env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1");
        if (hasUrl) {
            // the models.dev catalogue is useless for a custom endpoint
            p.env("OPENCODE_DISABLE_MODELS_FETCH", "1");
        }
    }

    @Override
    public StreamParser newParser() {
        return new OpencodeStreamParser();
    }
}
