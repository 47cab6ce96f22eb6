package io.tablestorecdc.emulator.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.server.Faults.ConnectionFault;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Connection-level faults do exactly what they say, as a client sees them; and without them a
 * connection ends only between requests (after {@code Connection: close} or when idle).
 */
class ConnectionFaultsITCase {

    private static final Duration IDLE_TIMEOUT = Duration.ofMillis(1_500);

    private TablestoreEmulator emulator;
    private SyncClient client;

    @BeforeEach
    void start() {
        emulator = TablestoreEmulator.builder().idleTimeout(IDLE_TIMEOUT).build().start();
        client = emulator.newSyncClient();
        TableMeta meta = new TableMeta("t");
        meta.addPrimaryKeyColumn("pk", PrimaryKeyType.INTEGER);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    @AfterEach
    void stop() {
        client.shutdown();
        emulator.close();
    }

    @Test
    void closeBeforeDispatchFailsTheCallAndAppliesNothing() {
        emulator.faults()
                .add(Faults.Rule.connection("PutRow", ConnectionFault.CLOSE_BEFORE_DISPATCH, 1));

        assertThatThrownBy(() -> put(1)).isInstanceOf(ClientException.class);

        assertThat(get(1)).isNull();
        put(2);
        assertThat(get(2)).isNotNull();
    }

    @Test
    void closeBeforeAnswerFailsTheCallButTheWriteIsApplied() {
        emulator.faults()
                .add(Faults.Rule.connection("PutRow", ConnectionFault.CLOSE_BEFORE_ANSWER, 1));

        assertThatThrownBy(() -> put(1)).isInstanceOf(ClientException.class);

        assertThat(get(1)).as("applied, though the client was never told").isNotNull();
    }

    @Test
    void resetMidResponseFailsTheCallButTheWriteIsApplied() {
        emulator.faults()
                .add(Faults.Rule.connection("PutRow", ConnectionFault.RESET_MID_RESPONSE, 1));

        assertThatThrownBy(() -> put(1)).isInstanceOf(ClientException.class);

        assertThat(get(1)).isNotNull();
    }

    @Test
    void theSdkRetriesAReadWhoseConnectionWasReset() {
        put(1);
        emulator.faults()
                .add(Faults.Rule.connection("GetRow", ConnectionFault.RESET_MID_RESPONSE, 2));

        assertThat(get(1))
                .as("GetRow is idempotent: the SDK's default strategy retries it")
                .isNotNull();
        assertThat(emulator.server().requestCount("GetRow")).isEqualTo(3);
    }

    @Test
    void closeWhenIdleClosesTheConnectionOnceIdleWithoutConnectionClose() throws Exception {
        put(1);
        emulator.faults().add(Faults.Rule.closeWhenIdle("GetRow", 0, 1));

        // The SDK sees nothing: its call was answered in full.
        assertThat(get(1)).isNotNull();
        awaitOpenConnections(0);
        // And the next call opens a new connection.
        assertThat(get(1)).isNotNull();
    }

    @Test
    void aKeptAliveConnectionStaysOpenUntilTheIdleTimeoutThenCloses() throws IOException {
        try (Socket socket = socket()) {
            send(socket, "GET /_emulator/faults HTTP/1.1\r\nHost: x\r\n\r\n");
            String first = readResponse(socket.getInputStream());
            assertThat(first)
                    .startsWith("HTTP/1.1 200")
                    .doesNotContainIgnoringCase("connection: close");
            long answered = System.nanoTime();

            socket.setSoTimeout((int) IDLE_TIMEOUT.toMillis() * 4);
            assertThat(socket.getInputStream().read()).as("closed at idle").isEqualTo(-1);
            long idle = Duration.ofNanos(System.nanoTime() - answered).toMillis();
            assertThat(idle).isGreaterThanOrEqualTo(IDLE_TIMEOUT.toMillis() - 50);
        }
    }

    @Test
    void aRequestInFlightLongerThanTheIdleTimeoutIsStillAnswered() throws IOException {
        emulator.faults().add(Faults.Rule.latency("GetRow", IDLE_TIMEOUT.toMillis() * 2));

        assertThat(get(0)).isNull(); // answered (the row is absent), not cut off
    }

    @Test
    void connectionCloseIsAnsweredThenTheConnectionEnds() throws IOException {
        try (Socket socket = socket()) {
            send(socket, "GET /_emulator/faults HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            String response = readResponse(socket.getInputStream());
            assertThat(response)
                    .startsWith("HTTP/1.1 200")
                    .containsIgnoringCase("connection: close");
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws IOException {
        try (Socket socket = socket()) {
            send(
                    socket,
                    "GET /_emulator/nope-1 HTTP/1.1\r\nHost: x\r\n\r\n"
                            + "GET /_emulator/faults HTTP/1.1\r\nHost: x\r\n\r\n"
                            + "GET /_emulator/nope-3 HTTP/1.1\r\nHost: x\r\n\r\n");
            InputStream in = socket.getInputStream();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 404").contains("nope-1");
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
            assertThat(readResponse(in)).startsWith("HTTP/1.1 404").contains("nope-3");
        }
    }

    @Test
    void connectionRulesRoundTripThroughTheAdminJson() {
        Faults.Rule rule =
                Faults.ruleFromJson(
                        Map.of(
                                "api",
                                "PutRow",
                                "connection",
                                "close-when-idle",
                                "idleMs",
                                250L,
                                "count",
                                2L));
        assertThat(rule.connection()).contains(ConnectionFault.CLOSE_WHEN_IDLE);
        assertThat(rule.idleMillis()).isEqualTo(250);
        assertThat(Faults.ruleFromJson(rule.toJson())).isEqualTo(rule);
        assertThatThrownBy(() -> Faults.ruleFromJson(Map.of("api", "PutRow", "connection", "drop")))
                .hasMessageContaining("close-before-dispatch");
        assertThatThrownBy(
                        () ->
                                Faults.ruleFromJson(
                                        Map.of(
                                                "api",
                                                "PutRow",
                                                "connection",
                                                "reset-mid-response",
                                                "error",
                                                "OTSServerBusy")))
                .hasMessageContaining("add two rules");
    }

    private void awaitOpenConnections(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (emulator.server().openConnections() != expected) {
            assertThat(System.nanoTime())
                    .as("open connections reach %d", expected)
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private void put(long n) {
        RowPutChange change = new RowPutChange("t", key(n));
        change.addColumn("v", ColumnValue.fromLong(n));
        client.putRow(new PutRowRequest(change));
    }

    private Row get(long n) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria("t", key(n));
        criteria.setMaxVersions(1);
        return client.getRow(new GetRowRequest(criteria)).getRow();
    }

    private static PrimaryKey key(long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromLong(n))
                .build();
    }

    private Socket socket() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), emulator.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void send(Socket socket, String request) throws IOException {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
    }

    /** One response: its head and body as text ("" when the connection ended first). */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException e) {
                return "";
            }
            if (b < 0) {
                return "";
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
}
