package io.tablestorecdc.emulator;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import io.tablestorecdc.emulator.server.EmulatorServer;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.table.RowCounts;
import io.tablestorecdc.emulator.table.TableAccess;
import io.tablestorecdc.emulator.table.TableApi;
import io.tablestorecdc.emulator.table.TableStore;
import io.tablestorecdc.emulator.tunnel.TunnelService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A local Tablestore that the unmodified SDK talks to over loopback HTTP: the embedded entry point.
 * {@code TablestoreEmulator.builder().build().start()} serves on a free port with the default
 * instance and credentials; {@link #endpoint()} and the credential getters configure a client.
 */
public final class TablestoreEmulator implements AutoCloseable {

    public static final String DEFAULT_INSTANCE = "emulator";
    public static final String DEFAULT_ACCESS_KEY_ID = "emulator-id";
    public static final String DEFAULT_ACCESS_KEY_SECRET = "emulator-secret";

    private static final Pattern INSTANCE_NAME = Pattern.compile("^[a-zA-Z0-9_-]+$");

    private final int requestedPort;
    private final Optional<Path> dataDir;
    private final String instanceName;
    private final String accessKeyId;
    private final String accessKeySecret;
    private final TableStore tables = new TableStore();
    private final Faults faults = new Faults();
    private final EmulatorServer server;
    private final TunnelService tunnels;
    private final RowCounts rowCounts;

    private TablestoreEmulator(Builder b) {
        this.requestedPort = b.port;
        this.dataDir = b.dataDir;
        this.instanceName = b.instanceName;
        this.accessKeyId = b.accessKeyId;
        this.accessKeySecret = b.accessKeySecret;
        this.server =
                new EmulatorServer(instanceName, Map.of(accessKeyId, accessKeySecret), faults);
        server.idleTimeout(b.idleTimeout);
        new TableApi(tables, b.batchWriteRepeatedKeys).registerWith(server);
        this.rowCounts = RowCounts.install(tables, server);
        this.tunnels = installTunnelService();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The tunnel API: registers the {@code tunnel/} actions and the partition / split / merge /
     * clients admin routes, feeds the table layer's writes into the partitions' change logs, and
     * with a data directory journals tunnel state ({@code tunnels.journal}).
     */
    private TunnelService installTunnelService() {
        TunnelService service = new TunnelService(tables, server);
        // Opened before start() replays the table journal, so tunnel events interleave with it.
        dataDir.ifPresent(service::recoverFrom);
        return service;
    }

    /**
     * Accepts requests signed with this access key (and STS token, when not {@code null}) from now
     * on, besides the key the emulator was started with: lets a test rotate credentials.
     */
    public void acceptKey(String accessKeyId, String accessKeySecret, String stsToken) {
        server.acceptKey(accessKeyId, accessKeySecret, stsToken);
    }

    /** Refuses requests signed with {@code accessKeyId} from now on. */
    public void revokeKey(String accessKeyId) {
        server.revokeKey(accessKeyId);
    }

    /** How many requests signed with {@code accessKeyId} were accepted since start. */
    public long acceptedRequestsSignedBy(String accessKeyId) {
        return server.acceptedRequestsSignedBy(accessKeyId);
    }

    /** The tunnel layer: partitions, split / merge, client and tunnel expiry, read batch sizes. */
    public TunnelService tunnels() {
        return tunnels;
    }

    /**
     * Recovers the data directory (if any), binds the loopback port and starts serving; returns
     * this for chaining.
     */
    public TablestoreEmulator start() {
        if (dataDir.isPresent()) {
            try {
                tables.recoverFrom(dataDir.get());
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "Cannot recover the data directory "
                                + dataDir.get()
                                + ": "
                                + e.getMessage(),
                        e);
            }
        }
        try {
            server.start(requestedPort);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot bind 127.0.0.1:"
                            + requestedPort
                            + "; choose a free port or 0 for any free port",
                    e);
        }
        return this;
    }

    /** {@code http://127.0.0.1:PORT}; only valid after {@link #start()}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.port();
    }

    public int port() {
        return server.port();
    }

    public String instanceName() {
        return instanceName;
    }

    public String accessKeyId() {
        return accessKeyId;
    }

    public String accessKeySecret() {
        return accessKeySecret;
    }

    /**
     * A new SDK table client on this emulator with its credentials and the SDK's default
     * configuration; only valid after {@link #start()}. The caller owns it and shuts it down.
     */
    public SyncClient newSyncClient() {
        return new SyncClient(endpoint(), accessKeyId, accessKeySecret, instanceName);
    }

    /**
     * A new SDK tunnel client on this emulator with its credentials and the SDK's default
     * configuration; only valid after {@link #start()}. The caller owns it and shuts it down.
     */
    public TunnelClient newTunnelClient() {
        return new TunnelClient(endpoint(), accessKeyId, accessKeySecret, instanceName);
    }

    /** The table layer, for the tunnel layer and for tests that inspect state directly. */
    public TableAccess tables() {
        return tables;
    }

    /** Rows written and deleted per table since start (also served as {@code /_emulator/rows}). */
    public RowCounts rowCounts() {
        return rowCounts;
    }

    /** The HTTP server, to register further action and admin handlers. */
    public EmulatorServer server() {
        return server;
    }

    /** The fault rules applied to every API call. */
    public Faults faults() {
        return faults;
    }

    @Override
    public void close() {
        server.close();
        try {
            tunnels.close();
            tables.close();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot close the data directory's journal", e);
        }
    }

    @Override
    public String toString() {
        // The secret stays out on purpose.
        return "TablestoreEmulator{instance=" + instanceName + ", accessKeyId=" + accessKeyId + "}";
    }

    /** Configures an emulator; every setting has a default (see the constants). */
    public static final class Builder {
        private int port = 0;
        private String instanceName = DEFAULT_INSTANCE;
        private String accessKeyId = DEFAULT_ACCESS_KEY_ID;
        private String accessKeySecret = DEFAULT_ACCESS_KEY_SECRET;
        private Optional<Path> dataDir = Optional.empty();
        private Duration idleTimeout = EmulatorServer.DEFAULT_IDLE_TIMEOUT;
        private boolean batchWriteRepeatedKeys;

        private Builder() {}

        /**
         * Whether a BatchWriteRow may name one row of a table more than once. By default (false)
         * the whole request is refused with {@code OTSParameterInvalid}, as the service's
         * BatchWriteRow reference states; with true the rows are applied in request order, the
         * later change over the earlier, as tests written against some service versions expect. The
         * connectors' writers never send a key twice in one request, so they behave the same either
         * way.
         */
        public Builder batchWriteRepeatedKeys(boolean accepted) {
            this.batchWriteRepeatedKeys = accepted;
            return this;
        }

        /**
         * How long a kept-alive connection may stay idle before the emulator closes it (default
         * {@link EmulatorServer#DEFAULT_IDLE_TIMEOUT}). Keep it above your clients' own idle
         * eviction (an SDK client drops a connection idle for 5 to 10 s), as a production
         * endpoint's is.
         */
        public Builder idleTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("idleTimeout must be positive, got " + timeout);
            }
            this.idleTimeout = timeout;
            return this;
        }

        /**
         * Keeps state in {@code dir} across restarts: every acknowledged table mutation is fsync'ed
         * there first. Without it (the default) state lives in memory only.
         */
        public Builder dataDir(Path dir) {
            this.dataDir = Optional.of(dir);
            return this;
        }

        /** The loopback port; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder instanceName(String instanceName) {
            this.instanceName = instanceName;
            return this;
        }

        public Builder accessKeyId(String accessKeyId) {
            this.accessKeyId = accessKeyId;
            return this;
        }

        public Builder accessKeySecret(String accessKeySecret) {
            this.accessKeySecret = accessKeySecret;
            return this;
        }

        public TablestoreEmulator build() {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException(
                        "port must be 0 (any free port) or 1..65535, got " + port);
            }
            if (instanceName == null || !INSTANCE_NAME.matcher(instanceName).matches()) {
                throw new IllegalArgumentException(
                        "instanceName must match [a-zA-Z0-9_-]+ as the"
                                + " SDK requires, got '"
                                + instanceName
                                + "'");
            }
            if (accessKeyId == null || accessKeyId.isEmpty()) {
                throw new IllegalArgumentException("accessKeyId must not be empty");
            }
            if (accessKeySecret == null || accessKeySecret.isEmpty()) {
                throw new IllegalArgumentException("accessKeySecret must not be empty");
            }
            return new TablestoreEmulator(this);
        }
    }
}
