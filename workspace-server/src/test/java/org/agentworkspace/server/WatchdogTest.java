package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The watchdog {@link Main} runs: a watched thread that ends makes it exit the process with status 70 (here through
 * a recording {@link ProcessExit}, as tests never end the test JVM).
 * The real server's use of it (the HTTP listener found and watched) is checked by {@code SlowClientsTest}, which
 * starts {@code Main} as a process.
 */
class WatchdogTest {
    @Test
    void aWatchedThreadThatEndsExitsWithStatus70() throws Exception {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        CountDownLatch die = new CountDownLatch(1);
        Thread worker = Thread.ofPlatform().daemon().start(() -> {
            try {
                die.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (Watchdog w = Watchdog.start(status::complete, Duration.ofMillis(50))) {
            w.watch("the worker", worker::isAlive);
            Thread.sleep(300);
            assertTrue(!status.isDone(), "alive: no exit");
            die.countDown();
            assertEquals(Watchdog.EXIT_CRASHED, status.get(5, TimeUnit.SECONDS));
        }
    }
}
