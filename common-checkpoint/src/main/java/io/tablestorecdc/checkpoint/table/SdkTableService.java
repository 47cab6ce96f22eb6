package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.SyncClientInterface;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.core.ResourceManager;
import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.ComputeSplitsBySizeRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableResponse;
import com.alicloud.openservices.tablestore.model.Direction;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Split;
import com.alicloud.openservices.tablestore.model.StreamDetails;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@link TableService} over the SDK's {@link SyncClient}: the only code that sends a data table's
 * read requests. Whole requests are retried by the SDK's default retry strategy (all of them are
 * idempotent reads).
 */
@Internal
public final class SdkTableService implements TableService {

    private static final long BYTES_PER_100_MB = 100L * 1024 * 1024;

    private final SyncClientInterface client;
    private final RawTableReads reads;
    private final String tableName;
    private volatile Described described;

    private SdkTableService(SyncClientInterface client, RawTableReads reads, String tableName) {
        this.client = Objects.requireNonNull(client, "client");
        this.reads = Objects.requireNonNull(reads, "reads");
        this.tableName = Objects.requireNonNull(tableName, "tableName");
    }

    /**
     * A service for table {@code tableName} on the instance {@code endpoint} names. Its GetRange
     * pages and BatchGetRow answers are decoded by {@link RawTableReads}, on the client's own
     * connections and threads.
     */
    public static SdkTableService connect(TablestoreEndpoint endpoint, String tableName) {
        if (tableName == null || tableName.isBlank()) {
            throw new IllegalArgumentException("Set the table name ('table.name')");
        }
        ClientConfiguration config = new ClientConfiguration();
        CredentialsProvider credentials = SdkCredentials.open(endpoint.credentials());
        ResourceManager resources = new ResourceManager(config);
        SyncClient client =
                new SyncClient(
                        endpoint.endpoint(),
                        credentials,
                        endpoint.instanceName(),
                        config,
                        resources);
        RawTableReads raw =
                new RawTableReads(
                        endpoint.endpoint(),
                        endpoint.instanceName(),
                        resources.getResources(),
                        credentials,
                        config);
        return new SdkTableService(client, raw, tableName);
    }

    private static SyncClient client(TablestoreEndpoint endpoint) {
        return new SyncClient(
                endpoint.endpoint(),
                SdkCredentials.open(endpoint.credentials()),
                endpoint.instanceName(),
                new ClientConfiguration(),
                null);
    }

    /**
     * The names of the tables of the instance {@code endpoint} names (ListTable), sorted.
     *
     * @throws IllegalStateException when the instance cannot be listed, naming the service's error
     *     and the fix
     */
    public static List<String> listTables(TablestoreEndpoint endpoint) {
        SyncClient client = client(endpoint);
        try {
            List<String> names = new ArrayList<>(client.listTable().getTableNames());
            names.sort(null);
            return names;
        } catch (TableStoreException e) {
            throw new IllegalStateException(
                    "Could not list the tables of instance '"
                            + endpoint.instanceName()
                            + "' ("
                            + e.getErrorCode()
                            + ": "
                            + e.getMessage()
                            + "): table.pattern needs the ListTable permission (ots:ListTable);"
                            + " grant it, or name the tables in table.name.",
                    e);
        } catch (ClientException e) {
            throw new IllegalStateException(
                    "Could not list the tables of instance '"
                            + endpoint.instanceName()
                            + "' at "
                            + endpoint.endpoint()
                            + ": "
                            + e.getMessage()
                            + ". Check endpoint and instance.name.",
                    e);
        } finally {
            client.shutdown();
        }
    }

    @Override
    public String tableName() {
        return tableName;
    }

    @Override
    public List<PrimaryKeySchema> primaryKey() {
        return described().primaryKey();
    }

    @Override
    public Set<String> streamOriginColumns() {
        return described().originColumns();
    }

    /**
     * The origin columns a DescribeTable answer lists for the table's stream (empty when it has no
     * stream or names none): the one reading of them, for every caller that describes a table.
     */
    public static Set<String> originColumns(DescribeTableResponse described) {
        StreamDetails stream = described.getStreamDetails();
        return stream == null || !stream.isEnableStream() || stream.getOriginColumnsToGet() == null
                ? Set.of()
                : Set.copyOf(stream.getOriginColumnsToGet());
    }

    /** What the service keeps of the table's DescribeTable answer. */
    private record Described(List<PrimaryKeySchema> primaryKey, Set<String> originColumns) {}

    /** One DescribeTable per service, kept: the key and the stream settings come from it. */
    private Described described() {
        Described known = described;
        if (known == null) {
            DescribeTableResponse answer =
                    client.describeTable(new DescribeTableRequest(tableName));
            known =
                    new Described(
                            List.copyOf(answer.getTableMeta().getPrimaryKeyList()),
                            originColumns(answer));
            described = known;
        }
        return known;
    }

    @Override
    public List<RowResult> batchGet(List<PrimaryKey> keys, Set<String> columns) {
        MultiRowQueryCriteria criteria = new MultiRowQueryCriteria(tableName);
        criteria.setMaxVersions(1);
        keys.forEach(criteria::addRow);
        columns.forEach(criteria::addColumnsToGet);
        BatchGetRowRequest request = new BatchGetRowRequest();
        request.addMultiRowQueryCriteria(criteria);
        BatchGetRowResponse response = reads.batchGetRow(request);
        List<RowResult> out = new ArrayList<>(keys.size());
        for (BatchGetRowResponse.RowResult row : response.getBatchGetRowResult(tableName)) {
            out.add(
                    row.isSucceed()
                            ? RowResult.read(Optional.ofNullable(row.getRow()))
                            : RowResult.failed(
                                    new ServiceError(
                                            row.getError().getCode(),
                                            row.getError().getMessage())));
        }
        return out;
    }

    @Override
    public RangePage getRange(KeyRange range, Set<String> columns, int limit) {
        return page(reads.getRange(rangeRequest(range, columns, limit)));
    }

    @Override
    public CompletableFuture<RangePage> getRangeAsync(
            KeyRange range, Set<String> columns, int limit) {
        return reads.getRangeAsync(rangeRequest(range, columns, limit))
                .thenApply(SdkTableService::page);
    }

    private GetRangeRequest rangeRequest(KeyRange range, Set<String> columns, int limit) {
        RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(tableName);
        criteria.setInclusiveStartPrimaryKey(range.inclusiveStart());
        criteria.setExclusiveEndPrimaryKey(range.exclusiveEnd());
        criteria.setDirection(Direction.FORWARD);
        criteria.setMaxVersions(1);
        criteria.setLimit(limit);
        columns.forEach(criteria::addColumnsToGet);
        return new GetRangeRequest(criteria);
    }

    private static RangePage page(GetRangeResponse response) {
        return new RangePage(
                response.getRows(), Optional.ofNullable(response.getNextStartPrimaryKey()));
    }

    @Override
    public List<KeyRange> splits(long bytes) {
        ComputeSplitsBySizeRequest request = new ComputeSplitsBySizeRequest();
        request.setTableName(tableName);
        if (bytes % BYTES_PER_100_MB == 0) {
            request.setSplitSizeIn100MB(bytes / BYTES_PER_100_MB);
        } else {
            request.setSplitSizeInByte(1, bytes);
        }
        List<KeyRange> out = new ArrayList<>();
        for (Split split : client.computeSplitsBySize(request).getSplits()) {
            out.add(new KeyRange(split.getLowerBound(), split.getUpperBound()));
        }
        return out;
    }

    @Override
    public void close() {
        // Its I/O threads end even when the closing thread was interrupted (a cancelled task).
        CloseSequence.of("the table client")
                .then("shut down its I/O threads", client::shutdown)
                .finish();
    }

    @Override
    public String toString() {
        return "SdkTableService{table=" + tableName + "}";
    }
}
