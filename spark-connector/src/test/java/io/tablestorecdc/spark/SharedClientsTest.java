package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SharedClientsTest {

    private static final Duration IDLE = Duration.ofSeconds(60);

    private final AtomicLong nanos = new AtomicLong(-7_000_000_000L);
    private final AtomicInteger opened = new AtomicInteger();
    private final SharedClients<String, FakeClient> clients =
            new SharedClients<>("fake client", IDLE, nanos::get);

    @Test
    void tasksOfOneKeyShareOneClient() {
        var first = clients.borrow("a", this::open);
        var second = clients.borrow("a", this::open);

        assertThat(second.client()).isSameAs(first.client());
        assertThat(opened).hasValue(1);
        first.close();
        second.close();
        assertThat(clients.borrow("a", this::open).client()).isSameAs(first.client());
    }

    @Test
    void differentKeysGetDifferentClients() {
        var a = clients.borrow("a", this::open);
        var b = clients.borrow("b", this::open);

        assertThat(a.client()).isNotSameAs(b.client());
        assertThat(clients.size()).isEqualTo(2);
    }

    @Test
    void aClientNobodyBorrowedForTheIdleTimeoutIsClosed() {
        var lease = clients.borrow("a", this::open);
        FakeClient client = lease.client();
        lease.close();

        advance(IDLE.minusMillis(1));
        assertThat(clients.closeIdle()).isZero();
        assertThat(client.closed).isFalse();
        advance(Duration.ofMillis(1));
        assertThat(clients.closeIdle()).isEqualTo(1);

        assertThat(client.closed).isTrue();
        assertThat(clients.size()).isZero();
        assertThat(clients.borrow("a", this::open).client()).isNotSameAs(client);
    }

    @Test
    void aBorrowedClientIsNeverClosedForIdleness() {
        var held = clients.borrow("a", this::open);
        clients.borrow("a", this::open).close();

        advance(IDLE.multipliedBy(10));
        clients.closeIdle();

        assertThat(held.client().closed).isFalse();
    }

    @Test
    void returningALeaseTwiceCountsOnce() {
        var held = clients.borrow("a", this::open);
        var other = clients.borrow("a", this::open);
        other.close();
        other.close();

        advance(IDLE);
        clients.closeIdle();

        assertThat(held.client().closed).isFalse();
    }

    @Test
    void closeAllClosesEveryClientAtJvmStop() {
        FakeClient a = clients.borrow("a", this::open).client();
        FakeClient b = clients.borrow("b", this::open).client();

        clients.closeAll();

        assertThat(a.closed).isTrue();
        assertThat(b.closed).isTrue();
        assertThat(clients.size()).isZero();
    }

    @Test
    void concurrentFirstBorrowsOpenOneClient() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<FakeClient>> got = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                got.add(
                        pool.submit(
                                () -> {
                                    go.await();
                                    return clients.borrow("a", this::open).client();
                                }));
            }
            go.countDown();
            FakeClient first = got.get(0).get(30, TimeUnit.SECONDS);
            for (Future<FakeClient> f : got) {
                assertThat(f.get(30, TimeUnit.SECONDS)).isSameAs(first);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(opened).hasValue(1);
    }

    @Test
    void aFailedOpenCachesNothing() {
        RuntimeException refused = new IllegalStateException("refused");

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                clients.borrow(
                                        "a",
                                        () -> {
                                            throw refused;
                                        }))
                .isSameAs(refused);
        assertThat(clients.size()).isZero();
        assertThat(clients.borrow("a", this::open).client()).isNotNull();
    }

    private FakeClient open() {
        opened.incrementAndGet();
        return new FakeClient();
    }

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    static final class FakeClient implements AutoCloseable {
        volatile boolean closed;

        @Override
        public void close() {
            closed = true;
        }
    }
}
