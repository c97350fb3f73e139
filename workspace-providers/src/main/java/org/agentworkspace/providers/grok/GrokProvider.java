package org.agentworkspace.providers.grok;

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
import org.agentworkspace.api.provider.ProviderDescriptor.Model;
import org.agentworkspace.api.provider.ProviderDescriptor.ModelApi;
import org.agentworkspace.api.provider.ProviderDescriptor.Models;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;
import org.agentworkspace.providers.common.ProviderBase;

/**
 * Grok CLI ({@code @vibe-kit/grok-cli}). argv: {@code grok [--model=M] --prompt=PROMPT}. Key and endpoint:
 * {@code GROK_API_KEY}, {@code GROK_BASE_URL}. Grok has no sessions (resuming is refused) and no permission modes: in
 * headless mode it runs every tool without asking, whatever the requested mode. It exits with 0 even on API errors;
 * the parser recognises its error answer.
 */
public final class GrokProvider extends ProviderBase {

    /** Install, key, config files, models and login of the Grok CLI (docs/providers.md, grok). */
    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ProviderId.GROK.wireId(), "Grok CLI",
            Install.npm("grok", "@vibe-kit/grok-cli", "0.0.34"),
            new Credentials("GROK_API_KEY", true),
            List.of(ConfigFile.of("user-settings", "Grok CLI user settings (user-settings.json)",
                    Location.home(".grok/user-settings.json"), FileFormat.JSON)),
            Mcp.none("Grok CLI reads MCP servers only from its own project file; it is not managed here"),
            Models.of(ModelApi.OPENAI, "https://api.x.ai/v1",
                    new Model("grok-code-fast-1", "Grok Code Fast 1", 256_000),
                    new Model("grok-4", "Grok 4", 256_000),
                    new Model("grok-4-fast", "Grok 4 Fast", 2_000_000)),
            // headless grok runs keep no sessions
            HistoryFormat.NONE,
            List.of(LoginCheck.jsonText(Location.home(".grok/user-settings.json"), "apiKey")));

    public GrokProvider() {
        super(DESCRIPTOR, List.of("grok"), false);
    }

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        if (spec.model() != null) {
            p.option("--model", spec.model());
        }
        p.option("--prompt", spec.prompt());
        if (spec.credentials().hasApiKey()) {
            p.secretEnv("GROK_API_KEY", spec.credentials().apiKey());
        }
        if (spec.credentials().hasBaseUrl()) {
            p.env("GROK_BASE_URL", spec.credentials().baseUrl());
        }
    }

    @Override
    public StreamParser newParser() {
        return new GrokStreamParser();
    }
}
