package io.tablestorecdc.emulator.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ShutdownTunnelRequest;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emulator's transport never fails a correct request: stock SDK clients (the SDK's default
 * configuration, no retry strategy of ours) under every connection pattern a real program produces
 * see no error at all, and every write they were told succeeded is in the table.
 *
 * <p>One client-side failure is told apart, not ignored: the SDK's HTTP client can report an
 * exchange that completed as "Connection closed" when the caller thread is descheduled between
 * {@code requestOutput()} and {@code isOpen()} in {@code connectionAllocated} (see {@code
 * AppliedOnceWrites}). A call failed that way whose write is in the table went through this
 * transport intact (a connection the server had closed carries no request), so it is counted as
 * landed and reported; any other failure, or such a write missing, fails the test.
 */
class TransportStormITCase {

    /**
     * The server's idle timeout in this test: above the SDK's worst case (a connection idle for 5 s
     * is closed by a sweep every 5 s, so at most 10 s), short enough to pause around it.
     */
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(12);

    private static final String TABLE = "storm";

    private TablestoreEmulator emulator;
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong acknowledged = new AtomicLong();
    private final List<Long> racedWrites = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() {
        emulator = TablestoreEmulator.builder().idleTimeout(IDLE_TIMEOUT).build().start();
        SyncClient client = stockClient();
        try {
            TableMeta meta = new TableMeta(TABLE);
            meta.addPrimaryKeyColumn("pk", PrimaryKeyType.INTEGER);
            CreateTableRequest create = new CreateTableRequest(meta, new TableOptions(-1, 1));
            create.setStreamSpecification(new StreamSpecification(true, 24));
            client.createTable(create);
        } finally {
            client.shutdown();
        }
    }

    @AfterEach
    void stop() {
        emulator.close();
    }

    @Test
    void sequentialWritesOnOneClient() {
        SyncClient client = stockClient();
        try {
            for (int i = 0; i < 5_000; i++) {
                put(client, i);
            }
        } finally {
            client.shutdown();
        }
        assertEveryWriteLanded(5_000);
    }

    @Test
    void manyThreadsWriteThroughOneClient() throws Exception {
        SyncClient client = stockClient();
        ExecutorService threads = Executors.newFixedThreadPool(64);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 64; t++) {
                int thread = t;
                done.add(
                        threads.submit(
                                () -> {
                                    for (int i = 0; i < 200; i++) {
                                        put(client, thread * 1_000L + i);
                                    }
                                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            client.shutdown();
        }
        assertEveryWriteLanded(64 * 200);
    }

    @Test
    void writesAfterABurstThatLeavesMoreThan300IdleConnections() throws Exception {
        // Two clients of up to 300 connections each; 200 overlapping calls on each leave 400
        // connections idle in their pools (and open on the server) when the burst ends.
        SyncClient first = stockClient();
        SyncClient second = stockClient();
        ExecutorService threads = Executors.newFixedThreadPool(400);
        try {
            // Long enough that every call of the burst is in flight at once even on a busy
            // machine (at 300 ms, a loaded 2-core machine had only 167 open at a time).
            emulator.faults().add(Faults.Rule.latency("GetRow", 3000));
            List<Future<?>> calls = new ArrayList<>();
            CountDownLatch all = new CountDownLatch(400);
            for (int i = 0; i < 400; i++) {
                SyncClient client = i % 2 == 0 ? first : second;
                calls.add(
                        threads.submit(
                                () -> {
                                    // Every call starts once all 400 threads are up.
                                    all.countDown();
                                    all.await();
                                    get(client, 0);
                                    return null;
                                }));
            }
            for (Future<?> call : calls) {
                call.get(120, TimeUnit.SECONDS);
            }
            emulator.faults().clear();
            assertThat(emulator.server().openConnections()).isGreaterThan(300);
            for (int i = 0; i < 500; i++) {
                put(i % 2 == 0 ? first : second, i);
            }
        } finally {
            emulator.faults().clear();
            threads.shutdownNow();
            first.shutdown();
            second.shutdown();
        }
        assertEveryWriteLanded(500);
    }

    @Test
    void writesSeparatedByPausesAroundTheClientsEvictionAndTheServersIdleTimeout()
            throws Exception {
        // The pauses around the client's eviction and those around the server's idle timeout
        // probe independent timers: each set runs in order on a client of its own, both at once.
        long[] aroundEviction = {
            4_800, // just before the client's eviction can close it (idle 5 s)
            5_300, // just after a sweep may have closed it
            10_300 // after the client closed it for sure
        };
        long[] aroundIdleTimeout = {
            IDLE_TIMEOUT.toMillis() - 300, // just before the server's idle timeout
            IDLE_TIMEOUT.toMillis() + 300 // just after
        };
        ExecutorService clients = Executors.newFixedThreadPool(2);
        try {
            Future<?> eviction = clients.submit(() -> writesSeparatedBy(aroundEviction, 0));
            Future<?> idle = clients.submit(() -> writesSeparatedBy(aroundIdleTimeout, 1_000));
            eviction.get(120, TimeUnit.SECONDS);
            idle.get(120, TimeUnit.SECONDS);
        } finally {
            clients.shutdownNow();
        }
        assertEveryWriteLanded(5 * 9);
    }

    /** On one stock client: per pause, a burst of writes, the pause, one more write. */
    private Void writesSeparatedBy(long[] pausesMillis, int firstKey) throws Exception {
        SyncClient client = stockClient();
        try {
            int key = firstKey;
            for (long pause : pausesMillis) {
                // A few writes from several threads, so more than one connection goes idle.
                burst(client, key, 8);
                key += 8;
                Thread.sleep(pause);
                put(client, key++);
            }
        } finally {
            client.shutdown();
        }
        return null;
    }

    @Test
    void aFreshClientPerCall() {
        for (int i = 0; i < 100; i++) {
            SyncClient client = stockClient();
            try {
                put(client, i);
            } finally {
                client.shutdown();
            }
        }
        assertEveryWriteLanded(100);
    }

    @Test
    void writesInterleavedWithSplitsMergesAndTunnelClientsComingAndGoing() throws Exception {
        SyncClient admin = stockClient();
        TunnelClient tunnels = stockTunnelClient();
        String tunnelId;
        try {
            tunnelId =
                    tunnels.createTunnel(new CreateTunnelRequest(TABLE, "storm", TunnelType.Stream))
                            .getTunnelId();
        } finally {
            tunnels.shutdown();
            admin.shutdown();
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService threads = Executors.newFixedThreadPool(10);
        HttpClient http = HttpClient.newHttpClient();
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                writers.add(
                        threads.submit(
                                () -> {
                                    SyncClient client = stockClient();
                                    try {
                                        for (int i = 0; i < 300; i++) {
                                            long key = thread * 1_000L + i;
                                            put(client, key);
                                            update(client, key);
                                        }
                                    } finally {
                                        client.shutdown();
                                    }
                                }));
            }
            Future<?> reshaper =
                    threads.submit(
                            () -> {
                                int round = 0;
                                while (writing.get() && round < 20) {
                                    long at = 500 + (round % 4) * 1_000L;
                                    admin(http, "split", at);
                                    admin(http, "merge", at);
                                    round++;
                                }
                            });
            Future<?> comers =
                    threads.submit(
                            () -> {
                                while (writing.get()) {
                                    tunnelClientComesAndGoes(tunnelId);
                                }
                            });
            for (Future<?> w : writers) {
                w.get(180, TimeUnit.SECONDS);
            }
            writing.set(false);
            reshaper.get(60, TimeUnit.SECONDS);
            comers.get(60, TimeUnit.SECONDS);
        } finally {
            writing.set(false);
            threads.shutdownNow();
        }
        assertEveryWriteLanded(8 * 300);
    }

    private void tunnelClientComesAndGoes(String tunnelId) {
        TunnelClient client = stockTunnelClient();
        try {
            String clientId =
                    client.connectTunnel(
                                    new ConnectTunnelRequest(
                                            tunnelId, new TunnelClientConfig(30, "storm")))
                            .getClientId();
            client.heartbeat(new HeartbeatRequest(tunnelId, clientId, new ArrayList<>()));
            client.describeTunnel(new DescribeTunnelRequest(TABLE, "storm"));
            client.shutdownTunnel(new ShutdownTunnelRequest(tunnelId, clientId));
        } catch (RuntimeException e) {
            failures.add("tunnel client: " + e);
        } finally {
            client.shutdown();
        }
    }

    private void admin(HttpClient http, String route, long at) {
        String body = "{\"table\":\"" + TABLE + "\",\"at\":{\"pk\":" + at + "}}";
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create(emulator.endpoint() + "/_emulator/" + route))
                                    .POST(HttpRequest.BodyPublishers.ofString(body))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                failures.add(route + " at " + at + ": " + response.body());
            }
        } catch (Exception e) {
            failures.add(route + " at " + at + ": " + e);
        }
    }

    private void burst(SyncClient client, int firstKey, int writes) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(writes);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < writes; i++) {
                long key = firstKey + i;
                done.add(threads.submit(() -> put(client, key)));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private void assertEveryWriteLanded(int rows) {
        assertThat(failures).as("client-visible errors").isEmpty();
        for (long n : racedWrites) {
            assertThat(emulator.tables().snapshot(TABLE, key(n), key(n + 1)))
                    .as("write %d the SDK reported closed at connection allocation", n)
                    .hasSize(1);
        }
        if (!racedWrites.isEmpty()) {
            System.out.printf(
                    "Writes the SDK reported closed at connection allocation, landed: %s%n",
                    racedWrites);
        }
        assertThat(acknowledged.get() + racedWrites.size()).isEqualTo(rows);
        assertThat(
                        emulator.tables()
                                .snapshot(
                                        TABLE,
                                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                                .addPrimaryKeyColumn("pk", PrimaryKeyValue.INF_MIN)
                                                .build(),
                                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                                .addPrimaryKeyColumn("pk", PrimaryKeyValue.INF_MAX)
                                                .build()))
                .hasSize(rows);
    }

    private void put(SyncClient client, long n) {
        RowPutChange change = new RowPutChange(TABLE, key(n));
        change.addColumn("v", ColumnValue.fromLong(n));
        try {
            client.putRow(new PutRowRequest(change));
            acknowledged.incrementAndGet();
        } catch (RuntimeException e) {
            if (AppliedOnceWrites.reportedClosedAtAllocation(e)) {
                racedWrites.add(n); // judged by the table in assertEveryWriteLanded
            } else {
                failures.add("put " + n + ": " + e);
            }
        }
    }

    private void update(SyncClient client, long n) {
        RowUpdateChange change = new RowUpdateChange(TABLE, key(n));
        change.put("w", ColumnValue.fromLong(n));
        try {
            client.updateRow(new UpdateRowRequest(change));
        } catch (RuntimeException e) {
            failures.add("update " + n + ": " + e);
        }
    }

    private void get(SyncClient client, long n) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(TABLE, key(n));
        criteria.setMaxVersions(1);
        try {
            client.getRow(new GetRowRequest(criteria));
        } catch (RuntimeException e) {
            failures.add("get " + n + ": " + e);
        }
    }

    private static PrimaryKey key(long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromLong(n))
                .build();
    }

    /** The SDK's own client, default configuration: nothing of ours. */
    private SyncClient stockClient() {
        return new SyncClient(
                emulator.endpoint(),
                emulator.accessKeyId(),
                emulator.accessKeySecret(),
                emulator.instanceName());
    }

    private TunnelClient stockTunnelClient() {
        return new TunnelClient(
                emulator.endpoint(),
                emulator.accessKeyId(),
                emulator.accessKeySecret(),
                emulator.instanceName());
    }
}
