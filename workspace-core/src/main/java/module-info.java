/** The engine: accounts and keys, the store, projects and their confined files and git, sealed secrets, and provider management (status, credentials, models, installs, config files, MCP), and (later) runs and tasks. Never Helidon. */
module org.agentworkspace.core {
    requires transitive org.agentworkspace.api;
    requires java.sql;
    requires org.jdbi.v3.core;
    requires io.leangen.geantyref;
    requires org.slf4j;
    requires org.xerial.sqlitejdbc;
    requires org.postgresql.jdbc;
    requires com.zaxxer.hikari;
    requires org.bouncycastle.provider;
    requires com.fasterxml.jackson.databind;
    requires org.eclipse.jgit;
    requires com.googlecode.javaewah;
    requires org.apache.commons.codec;
    requires java.net.http;
    requires java.xml;
    requires java.management;
    // cron-utils is an automatic module
    requires com.cronutils;
    // pty4j is an automatic module; its explicit-module dependencies must be named so the module path resolves them
    requires pty4j;
    requires kotlin.stdlib;
    requires com.fasterxml.jackson.dataformat.toml;

    exports org.agentworkspace.core;
    exports org.agentworkspace.core.auth;
    exports org.agentworkspace.core.files;
    exports org.agentworkspace.core.history;
    exports org.agentworkspace.core.network;
    exports org.agentworkspace.core.notifications;
    exports org.agentworkspace.core.index;
    exports org.agentworkspace.core.json;
    exports org.agentworkspace.core.journal;
    exports org.agentworkspace.core.loop;
    exports org.agentworkspace.core.projects;
    exports org.agentworkspace.core.agent;
    exports org.agentworkspace.core.providers;
    exports org.agentworkspace.core.runs;
    exports org.agentworkspace.core.secrets;
    exports org.agentworkspace.core.settings;
    exports org.agentworkspace.core.shell;
    exports org.agentworkspace.core.tasks;
    exports org.agentworkspace.core.system;

    uses org.agentworkspace.api.vcs.VcsFactory;

}
