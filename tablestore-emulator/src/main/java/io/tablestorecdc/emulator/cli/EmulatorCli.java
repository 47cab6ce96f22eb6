package io.tablestorecdc.emulator.cli;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DefaultRetryStrategy;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.server.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The emulator as a local Tablestore from the shell: {@code java -jar tablestore-emulator.jar
 * <command> --endpoint URL ...} creates tables, writes and scans rows, creates tunnels and splits
 * or merges partitions on a running emulator, through the SDK (and the admin routes for split and
 * merge). Also loads a JSON file of tables and rows ({@code --load FILE} at start).
 */
public final class EmulatorCli {

    /**
     * The environment variable that stands in for {@code --endpoint}: the one the connectors'
     * examples, the operators' command line and the real-instance tests read.
     */
    public static final String ENDPOINT_ENV = "TABLESTORE_ENDPOINT";

    /** The former name of {@link #ENDPOINT_ENV}, still read, with a line that names the new one. */
    public static final String OLD_ENDPOINT_ENV = "TABLESTORE_EMULATOR_ENDPOINT";

    public static final String USAGE =
            String.join(
                    "\n",
                    "usage: java -jar tablestore-emulator.jar <command> --endpoint URL [options]",
                    "  (--endpoint may come from $"
                            + ENDPOINT_ENV
                            + "; --instance,"
                            + " --access-key-id, --access-key-secret default to the emulator's)",
                    "commands:",
                    "  create-table  --table T --pk name:TYPE[,name:TYPE...]   TYPE: STRING,"
                            + " INTEGER, BINARY; with a stream",
                    "  list-tables",
                    "  put           --table T (--row JSON | --file FILE)      FILE: a JSON array"
                            + " of rows or one row per line",
                    "  update        --table T --row JSON                      a null column is"
                            + " deleted",
                    "  delete        --table T --key JSON",
                    "  scan          --table T [--limit N]                     one JSON row per"
                            + " line, in key order",
                    "  create-tunnel --table T --tunnel NAME [--type stream|base|base-and-stream]",
                    "  split         --table T --at KEY-JSON",
                    "  merge         --table T --at KEY-JSON");

    private static final Set<String> COMMANDS =
            Set.of(
                    "create-table",
                    "list-tables",
                    "put",
                    "update",
                    "delete",
                    "scan",
                    "create-tunnel",
                    "split",
                    "merge");

    private EmulatorCli() {}

    /** True when {@code args} start with a command (not with a server option). */
    public static boolean isCommand(String[] args) {
        return args.length > 0 && COMMANDS.contains(args[0]);
    }

    /**
     * Runs one command; prints its result on {@code out} and problems on {@code err}.
     *
     * @return the exit code: 0 done, 1 the request failed, 2 the command line is wrong
     */
    public static int run(
            String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args, env);
            if (options.endpointFromOldVariable) {
                err.println(
                        OLD_ENDPOINT_ENV
                                + " is deprecated: set "
                                + ENDPOINT_ENV
                                + " instead (it is read first).");
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        SyncClient client =
                new SyncClient(
                        options.endpoint,
                        options.keyId,
                        options.secret,
                        options.instance,
                        shortRetries());
        try {
            execute(options, client, out);
            return 0;
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        } catch (TableStoreException e) {
            err.println(options.command + " failed: " + e.getErrorCode() + ": " + e.getMessage());
            return 1;
        } catch (ClientException | IOException e) {
            err.println(
                    options.command
                            + " failed: cannot reach the emulator at "
                            + options.endpoint
                            + " ("
                            + e.getMessage()
                            + "); start it with java -jar tablestore-emulator.jar --port N");
            return 1;
        } finally {
            client.shutdown();
        }
    }

    private static void execute(Options o, SyncClient client, PrintStream out) throws IOException {
        switch (o.command) {
            case "create-table" -> {
                createTable(client, RowJson.tableMeta(o.required("--table"), o.required("--pk")));
                out.println("created table " + o.value("--table"));
            }
            case "list-tables" -> client.listTable().getTableNames().forEach(out::println);
            case "put" -> {
                TableMeta meta = describe(client, o.required("--table"));
                List<Map<String, Object>> rows =
                        o.has("--file")
                                ? RowJson.rows(Files.readString(Path.of(o.value("--file"))))
                                : List.of(RowJson.object(Json.parse(o.required("--row"))));
                for (Map<String, Object> row : rows) {
                    client.putRow(new PutRowRequest(RowJson.put(meta, row)));
                }
                out.println("put " + rows.size() + " row(s) into " + meta.getTableName());
            }
            case "update" -> {
                TableMeta meta = describe(client, o.required("--table"));
                client.updateRow(
                        new UpdateRowRequest(
                                RowJson.update(
                                        meta, RowJson.object(Json.parse(o.required("--row"))))));
                out.println("updated 1 row of " + meta.getTableName());
            }
            case "delete" -> {
                TableMeta meta = describe(client, o.required("--table"));
                PrimaryKey key =
                        RowJson.primaryKey(meta, RowJson.object(Json.parse(o.required("--key"))));
                client.deleteRow(
                        new DeleteRowRequest(new RowDeleteChange(meta.getTableName(), key)));
                out.println("deleted 1 row of " + meta.getTableName());
            }
            case "scan" -> scan(client, describe(client, o.required("--table")), o.limit(), out);
            case "create-tunnel" -> createTunnel(o, out);
            case "split", "merge" -> out.println(admin(o));
            default -> throw new IllegalStateException(o.command);
        }
    }

    /**
     * The SDK's retry rules with a 2 s budget instead of 10 s: a command against an emulator that
     * is not there should say so at once.
     */
    private static ClientConfiguration shortRetries() {
        ClientConfiguration configuration = new ClientConfiguration();
        configuration.setRetryStrategy(new DefaultRetryStrategy(2, TimeUnit.SECONDS));
        return configuration;
    }

    /** Creates a table with a stream (so tunnels can read its changes). */
    static void createTable(SyncClient client, TableMeta meta) {
        CreateTableRequest create = new CreateTableRequest(meta, new TableOptions(-1, 1));
        create.setStreamSpecification(new StreamSpecification(true, 168));
        client.createTable(create);
    }

    private static TableMeta describe(SyncClient client, String table) {
        return client.describeTable(new DescribeTableRequest(table)).getTableMeta();
    }

    private static void scan(SyncClient client, TableMeta meta, long limit, PrintStream out) {
        RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(meta.getTableName());
        criteria.setInclusiveStartPrimaryKey(bound(meta, PrimaryKeyValue.INF_MIN));
        criteria.setExclusiveEndPrimaryKey(bound(meta, PrimaryKeyValue.INF_MAX));
        criteria.setMaxVersions(1);
        long printed = 0;
        while (printed < limit) {
            GetRangeResponse page = client.getRange(new GetRangeRequest(criteria));
            for (Row row : page.getRows()) {
                if (printed++ >= limit) {
                    return;
                }
                out.println(Json.write(RowJson.write(row)));
            }
            if (page.getNextStartPrimaryKey() == null) {
                return;
            }
            criteria.setInclusiveStartPrimaryKey(page.getNextStartPrimaryKey());
        }
    }

    private static PrimaryKey bound(TableMeta meta, PrimaryKeyValue value) {
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (PrimaryKeySchema column : meta.getPrimaryKeyList()) {
            key.addPrimaryKeyColumn(column.getName(), value);
        }
        return key.build();
    }

    private static void createTunnel(Options o, PrintStream out) {
        String type = o.valueOr("--type", "stream").toLowerCase(Locale.ROOT);
        TunnelType tunnelType =
                switch (type) {
                    case "stream" -> TunnelType.Stream;
                    case "base" -> TunnelType.BaseData;
                    case "base-and-stream" -> TunnelType.BaseAndStream;
                    default ->
                            throw new IllegalArgumentException(
                                    "--type is stream, base or base-and-stream, got '"
                                            + type
                                            + "'");
                };
        TunnelClient tunnels =
                new TunnelClient(o.endpoint, o.keyId, o.secret, o.instance, shortRetries());
        try {
            String id =
                    tunnels.createTunnel(
                                    new CreateTunnelRequest(
                                            o.required("--table"),
                                            o.required("--tunnel"),
                                            tunnelType))
                            .getTunnelId();
            out.println("created tunnel " + o.value("--tunnel") + " id=" + id);
        } finally {
            tunnels.shutdown();
        }
    }

    private static String admin(Options o) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("table", o.required("--table"));
        body.put("at", RowJson.object(Json.parse(o.required("--at"))));
        HttpURLConnection http =
                (HttpURLConnection)
                        URI.create(o.endpoint + "/_emulator/" + o.command).toURL().openConnection();
        http.setRequestMethod("POST");
        http.setDoOutput(true);
        try (OutputStream os = http.getOutputStream()) {
            os.write(Json.write(body).getBytes(StandardCharsets.UTF_8));
        }
        int status = http.getResponseCode();
        try (InputStream in = status < 400 ? http.getInputStream() : http.getErrorStream()) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (status >= 400) {
                throw new IllegalArgumentException(o.command + " refused: " + text);
            }
            return o.command + " of " + o.value("--table") + " made partitions " + text;
        }
    }

    /**
     * Creates the tables of {@code file} and puts their rows: {@code {"tables": [{"name": "orders",
     * "primaryKey": "id:STRING", "rows": [{"id": "o1", "amount": 10}]}]}}.
     */
    @SuppressWarnings("unchecked")
    public static String load(TablestoreEmulator emulator, Path file) throws IOException {
        Map<String, Object> json = Json.parseObject(Files.readString(file));
        Object tables = json.get("tables");
        if (!(tables instanceof List)) {
            throw new IllegalArgumentException(
                    file
                            + " needs a \"tables\" array, e.g. {\"tables\":[{\"name\":\"orders\","
                            + "\"primaryKey\":\"id:STRING\",\"rows\":[{\"id\":\"o1\"}]}]}");
        }
        SyncClient client = emulator.newSyncClient();
        int tableCount = 0;
        int rowCount = 0;
        try {
            for (Object item : (List<Object>) tables) {
                Map<String, Object> table = RowJson.object(item);
                String name = (String) table.get("name");
                String pk = (String) table.get("primaryKey");
                if (name == null || pk == null) {
                    throw new IllegalArgumentException(
                            "Every table in "
                                    + file
                                    + " needs \"name\" and \"primaryKey\" (name:TYPE,...), got "
                                    + table.keySet());
                }
                TableMeta meta = RowJson.tableMeta(name, pk);
                createTable(client, meta);
                tableCount++;
                for (Object row : (List<Object>) table.getOrDefault("rows", List.of())) {
                    client.putRow(new PutRowRequest(RowJson.put(meta, RowJson.object(row))));
                    rowCount++;
                }
            }
        } finally {
            client.shutdown();
        }
        return "loaded " + tableCount + " table(s) and " + rowCount + " row(s) from " + file;
    }

    private static final class Options {
        String command;
        String endpoint;
        String instance = TablestoreEmulator.DEFAULT_INSTANCE;
        String keyId = TablestoreEmulator.DEFAULT_ACCESS_KEY_ID;
        String secret = TablestoreEmulator.DEFAULT_ACCESS_KEY_SECRET;
        final Map<String, String> values = new LinkedHashMap<>();
        boolean endpointFromOldVariable;

        static Options parse(String[] args, Map<String, String> env) {
            if (!isCommand(args)) {
                throw new IllegalArgumentException(
                        args.length == 0 ? "Name a command" : "Unknown command '" + args[0] + "'");
            }
            Options o = new Options();
            o.command = args[0];
            for (int i = 1; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("Missing value after " + args[i]);
                }
                switch (args[i]) {
                    case "--endpoint" -> o.endpoint = args[i + 1];
                    case "--instance" -> o.instance = args[i + 1];
                    case "--access-key-id" -> o.keyId = args[i + 1];
                    case "--access-key-secret" -> o.secret = args[i + 1];
                    case "--table",
                                    "--pk",
                                    "--row",
                                    "--file",
                                    "--key",
                                    "--limit",
                                    "--tunnel",
                                    "--type",
                                    "--at" ->
                            o.values.put(args[i], args[i + 1]);
                    default -> throw new IllegalArgumentException("Unknown option " + args[i]);
                }
            }
            if (o.endpoint == null) {
                o.endpoint = env.get(ENDPOINT_ENV);
            }
            if (o.endpoint == null && env.get(OLD_ENDPOINT_ENV) != null) {
                o.endpoint = env.get(OLD_ENDPOINT_ENV);
                o.endpointFromOldVariable = true;
            }
            if (o.endpoint == null) {
                throw new IllegalArgumentException(
                        "Give the emulator's endpoint: --endpoint http://127.0.0.1:PORT (the"
                                + " 'ready' line prints it), or set "
                                + ENDPOINT_ENV);
            }
            return o;
        }

        boolean has(String option) {
            return values.containsKey(option);
        }

        String value(String option) {
            return values.get(option);
        }

        String valueOr(String option, String fallback) {
            return values.getOrDefault(option, fallback);
        }

        String required(String option) {
            String value = values.get(option);
            if (value == null) {
                throw new IllegalArgumentException(command + " needs " + option);
            }
            return value;
        }

        long limit() {
            String value = values.get("--limit");
            if (value == null) {
                return Long.MAX_VALUE;
            }
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--limit needs a number, got '" + value + "'");
            }
        }
    }
}
