/** Public contract of Agent Workspace: records, the error family and the plug-in SPIs. Depends on java.base only. */
module org.agentworkspace.api {
    exports org.agentworkspace.api;
    exports org.agentworkspace.api.files;
    exports org.agentworkspace.api.history;
    exports org.agentworkspace.api.provider;
    exports org.agentworkspace.api.vcs;

    uses org.agentworkspace.api.provider.AgentProviderFactory;
}
