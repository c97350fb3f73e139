package org.agentworkspace.providers.cursor;

import java.util.List;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;
import org.agentworkspace.providers.common.ProviderBase;

/**
 * Cursor's agent CLI. argv: {@code cursor-agent -p --output-format stream-json [--model=M] [--resume=ID] [--force]
 * --trust -- PROMPT}. Key: {@code CURSOR_API_KEY}; there is no endpoint override, so a base URL is refused rather than
 * silently ignored. {@code --trust} answers the workspace-trust question that otherwise stops a headless run.
 * cursor-agent is not published on npm, so this adapter is checked only against the fake CLI.
 */
public final class CursorProvider extends ProviderBase {

    public CursorProvider() {
        super(ProviderId.CURSOR.wireId(), "Cursor", List.of("cursor-agent"), true);
    }

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        if (spec.credentials().hasBaseUrl()) {
            throw WorkspaceException.Validation.of("Cursor does not support a custom base URL");
        }
        p.args("-p", "--output-format", "stream-json");
        if (spec.model() != null) {
            p.option("--model", spec.model());
        }
        if (spec.resumeSessionId() != null) {
            p.option("--resume", spec.resumeSessionId());
        }
        switch (spec.permissionMode()) {
            case DEFAULT -> {
            }
            // cursor-agent has one switch: --force allows edits and commands unless explicitly denied
            case ACCEPT_EDITS, BYPASS -> p.args("--force");
        }
        p.args("--trust");
        p.args("--", spec.prompt());
        if (spec.credentials().hasApiKey()) {
            p.secretEnv("CURSOR_API_KEY", spec.credentials().apiKey());
        }
    }

    @Override
    public StreamParser newParser() {
        return new CursorStreamParser();
    }
}
