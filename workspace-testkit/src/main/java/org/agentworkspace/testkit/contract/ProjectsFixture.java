package org.agentworkspace.testkit.contract;

import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The set-up most families share: one sign-in for the class and the projects a test registered deregistered after
 * it. A subclass adds its own {@code @BeforeAll} / {@code @AfterEach} under other names (JUnit runs this class's
 * {@code @BeforeAll} first and its {@code @AfterEach} last).
 */
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProjectsFixture {
    protected Session session;
    protected Projects projects;

    @BeforeAll
    void signInWithProjects(ContractClient client, ContractHost host) {
        session = client.login();
        projects = new Projects(client, host, session);
    }

    @AfterEach
    void deregisterProjects() {
        projects.deregisterAll();
    }
}
