/** The engine: accounts and keys, the store, projects and their confined files and git, sealed secrets, and provider management (status, credentials, models, installs, config files, MCP), and (later) runs and tasks. Never Helidon. */
module org.agentworkspace.core {
    requires transitive org.agentworkspace.api;
    requires java.sql;
    requires org.jdbi.v3.core;
    requires io.leangen.geantyref;
    requires org.slf4j;
    requires org.xerial.sqlitejdbc;
    requires org.postgresql.jdbc;
    requires org.bouncycastle.provider;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.toml;
    requires java.net.http;

    exports org.agentworkspace.core;
    exports org.agentworkspace.core.auth;
    exports org.agentworkspace.core.files;
    exports org.agentworkspace.core.history;
    exports org.agentworkspace.core.projects;
    exports org.agentworkspace.core.providers;
    exports org.agentworkspace.core.secrets;

    uses org.agentworkspace.api.vcs.VcsFactory;

}
