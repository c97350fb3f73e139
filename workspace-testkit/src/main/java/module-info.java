/** Black-box test support: the contract suite, a mock LLM endpoint and fake provider CLIs. Depends on no project module. */
module org.agentworkspace.testkit {
    requires java.net.http;
    requires jdk.httpserver;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires com.networknt.schema;
    // date-time format checks of the schema validator (a static requirement of com.networknt.schema)
    requires com.ethlo.time;
    requires org.junit.jupiter.api;
    requires org.junit.platform.launcher;

    exports org.agentworkspace.testkit.contract;
    exports org.agentworkspace.testkit.mockllm;
    exports org.agentworkspace.testkit.fakecli;
    exports org.agentworkspace.testkit.realcli;
    exports org.agentworkspace.testkit.git;
    exports org.agentworkspace.testkit.fs;
    exports org.agentworkspace.testkit.upnp;
    exports org.agentworkspace.testkit.historygen;
    opens org.agentworkspace.testkit.contract to org.junit.platform.commons;

    uses org.agentworkspace.testkit.contract.ContractTargetProvider;
}
