package io.tablestorecdc.emulator.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keep-alive connections stay usable while many others are idle: a server that closed a connection
 * right after answering on it once many were idle (the JDK's HTTP server does, past 200) would fail
 * an SDK client's next request on that pooled connection with "Connection closed".
 */
class KeepAliveConnectionITCase {

    /** More than the JDK HTTP server's default limit of 200 idle connections. */
    private static final int CONNECTIONS = 250;

    static TablestoreEmulator emulator;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        SyncClient client = client();
        try {
            TableMeta meta = new TableMeta("t");
            meta.addPrimaryKeyColumn("pk", PrimaryKeyType.INTEGER);
            client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        } finally {
            client.shutdown();
        }
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    @Test
    void everyKeptAliveConnectionServesASecondRequestWhileManyAreIdle() throws IOException {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), emulator.port());
                socket.setSoTimeout(10_000);
                sockets.add(socket);
                assertThat(exchange(socket)).as("first request on connection %d", i).isTrue();
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                assertThat(exchange(sockets.get(i)))
                        .as("second request on kept-alive connection %d", i)
                        .isTrue();
            }
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void sdkWritesRightAfterABurstOfConcurrentCallsDoNotFail() throws Exception {
        SyncClient crowd = client();
        SyncClient writer = client();
        ExecutorService threads = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            // Calls that overlap in time each take a pooled connection of their own.
            emulator.faults().add(Faults.Rule.latency("GetRow", 500));
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                calls.add(threads.submit(() -> crowd.getRow(new GetRowRequest(criteria()))));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
            emulator.faults().clear();
            List<String> failures = new ArrayList<>();
            List<Integer> raced = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                try {
                    put(writer, i);
                } catch (ClientException e) {
                    if (AppliedOnceWrites.reportedClosedAtAllocation(e)) {
                        raced.add(i); // the SDK's race, not the transport: the row must be there
                    } else {
                        failures.add("write " + i + ": " + e.getMessage());
                    }
                }
            }
            assertThat(failures).isEmpty();
            for (int i : raced) {
                assertThat(writer.getRow(new GetRowRequest(criteria(i))).getRow())
                        .as("write %d the SDK reported closed at connection allocation", i)
                        .isNotNull();
            }
        } finally {
            emulator.faults().clear();
            threads.shutdownNow();
            crowd.shutdown();
            writer.shutdown();
        }
    }

    /** One admin GET on a kept-alive connection; false when the server closed it instead. */
    private static boolean exchange(Socket socket) throws IOException {
        try {
            socket.getOutputStream()
                    .write(
                            ("GET /_emulator/faults HTTP/1.1\r\nHost: localhost\r\n\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
            return readResponse(socket.getInputStream());
        } catch (IOException e) {
            // A reset: the server closed the connection before this request.
            return false;
        }
    }

    private static boolean readResponse(InputStream in) throws IOException {
        String head = readHead(in);
        if (!head.startsWith("HTTP/1.1 200")) {
            return false;
        }
        int length = 0;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        return in.readNBytes(length).length == length;
    }

    /** The status line and headers, or "" when the connection ended first. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return "";
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    private static SingleRowQueryCriteria criteria() {
        return criteria(0);
    }

    private static SingleRowQueryCriteria criteria(long n) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria("t", key(n));
        criteria.setMaxVersions(1);
        return criteria;
    }

    private static void put(SyncClient client, long n) {
        RowPutChange change = new RowPutChange("t", key(n));
        change.addColumn("v", ColumnValue.fromLong(n));
        client.putRow(new PutRowRequest(change));
    }

    private static PrimaryKey key(long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromLong(n))
                .build();
    }

    private static SyncClient client() {
        return emulator.newSyncClient();
    }
}
