/** Public contract of Agent Workspace: records, the error family and the plug-in SPIs. Depends on java.base only. */
module org.agentworkspace.api {
    exports org.agentworkspace.api;
    exports org.agentworkspace.api.provider;

    uses org.agentworkspace.api.provider.AgentProviderFactory;
}
