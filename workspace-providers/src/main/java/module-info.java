/** Adapters for the provider CLIs. Exports nothing: reached through the SPI only. */
module org.agentworkspace.providers {
    requires org.agentworkspace.api;
    requires com.fasterxml.jackson.databind;

    provides org.agentworkspace.api.provider.AgentProviderFactory with
            org.agentworkspace.providers.claude.ClaudeProviderFactory,
            org.agentworkspace.providers.cursor.CursorProviderFactory,
            org.agentworkspace.providers.codex.CodexProviderFactory,
            org.agentworkspace.providers.gemini.GeminiProviderFactory,
            org.agentworkspace.providers.qwen.QwenProviderFactory,
            org.agentworkspace.providers.opencode.OpencodeProviderFactory,
            org.agentworkspace.providers.grok.GrokProviderFactory;
}
