package org.agentworkspace.providers.grok;

import java.util.List;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderId;
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

    public GrokProvider() {
        super(ProviderId.GROK.wireId(), "Grok CLI", List.of("grok"), false);
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
