package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnType;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulator's in-memory tables. Each table is a sorted map from primary key to row guarded by a
 * read-write lock; a write checks its condition, applies and notifies listeners all under the
 * table's write lock, so conditional writes on one key have exactly one winner and listeners see
 * each table's changes in commit order.
 */
public final class TableStore implements TableAccess {

    /** The service's message for a request on a table that does not exist. */
    static final String NO_SUCH_TABLE = "Requested table does not exist.";

    /** The service's error code for a write whose condition does not hold. */
    static final String CONDITION_CHECK_FAIL = "OTSConditionCheckFail";

    private static final Logger LOG = LoggerFactory.getLogger(TableStore.class);

    /** Rows per GetRange page when the request sets no (smaller) limit, as the service does. */
    static final int MAX_ROWS_PER_PAGE = 5000;

    /**
     * The data a GetRange page reads at most: the rows that fit in 4 MB (counted as their capacity
     * units are; a larger row alone), the next one starting the next page, as the service's pages
     * do (its SDK test {@code RestrictedItemTest}).
     */
    static final long MAX_BYTES_PER_PAGE = 4L * 1024 * 1024;

    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    private final Object catalogLock = new Object();
    private final List<TableListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong lastCommitMicros = new AtomicLong();
    private volatile Optional<TableJournal> journal = Optional.empty();

    /** One table's state. */
    private static final class Table {
        /** Replaced by UpdateTable (under the catalog lock); read without a lock. */
        volatile TableDescription description;

        final NavigableMap<PrimaryKey, StoredRow> rows = new TreeMap<>(PrimaryKeyOrder.INSTANCE);
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        boolean deleted;

        /** The last value given to the auto-increment column; guarded by the write lock. */
        long lastAutoIncrement;

        Table(TableDescription description) {
            this.description = description;
        }
    }

    @Override
    public void addListener(TableListener listener) {
        listeners.add(listener);
    }

    /**
     * Makes the store durable in {@code dataDir}: replays the journal found there (listeners see
     * the replayed tables and changes, so registered layers can rebuild from them), then journals
     * and fsyncs every later mutation before applying it. Call once, before serving.
     */
    public synchronized void recoverFrom(Path dataDir) throws IOException {
        if (journal.isPresent()) {
            throw new IllegalStateException(
                    "The table store is already durable in a data directory");
        }
        journal = Optional.of(TableJournal.open(dataDir, new Replayer()));
    }

    /** Closes the journal, if any; the in-memory state stays readable. */
    public synchronized void close() throws IOException {
        if (journal.isPresent()) {
            journal.get().close();
            journal = Optional.empty();
        }
    }

    /** Applies journal records: no conditions, recorded times, listeners notified. */
    private final class Replayer implements TableJournal.Replay {
        @Override
        public void created(TableDescription table) throws EmulatorError {
            addTable(table);
        }

        @Override
        public void deleted(String table) throws EmulatorError {
            removeTable(table);
        }

        @Override
        public void updated(TableDescription table) throws EmulatorError {
            describe(table(table.name()), table);
        }

        @Override
        public void written(
                String tableName,
                StreamRecord.RecordType type,
                PrimaryKey key,
                List<RecordColumn> cells,
                long commitMicros)
                throws EmulatorError {
            Table table = table(tableName);
            lastCommitMicros.accumulateAndGet(commitMicros, Math::max);
            commit(table, new RowChange(tableName, key, type, cells, commitMicros));
        }
    }

    public void createTable(TableDescription description) throws EmulatorError {
        validateSchema(description.meta());
        synchronized (catalogLock) {
            if (tables.containsKey(description.name())) {
                throw new EmulatorError(
                        "OTSObjectAlreadyExist",
                        409,
                        "Requested table already exists: " + description.name());
            }
            journal(j -> j.appendCreated(description));
            addTable(description);
        }
    }

    private void addTable(TableDescription description) {
        synchronized (catalogLock) {
            tables.put(description.name(), new Table(description));
            listeners.forEach(l -> notifySafely(() -> l.onTableCreated(description.meta())));
        }
    }

    /**
     * Applies an UpdateTable: the table's options and stream settings become {@code updated}'s (its
     * schema and rows stay), durably before the answer.
     *
     * @param change the table as it is after the update, from the table as it is
     * @return the table as it is after the update
     */
    public TableDescription updateTable(String name, UnaryOperator<TableDescription> change)
            throws EmulatorError {
        synchronized (catalogLock) {
            Table table = table(name);
            TableDescription updated = change.apply(table.description);
            journal(j -> j.appendUpdated(updated));
            describe(table, updated);
            return updated;
        }
    }

    /**
     * Gives the table its new description; versions beyond a lowered max versions are dropped at
     * once (the newest kept), with no change record, as the service drops them when it compacts.
     */
    private static void describe(Table table, TableDescription updated) {
        table.lock.writeLock().lock();
        try {
            int before = table.description.maxVersions();
            table.description = updated;
            int maxVersions = keptVersions(updated);
            if (maxVersions < before) {
                table.rows.replaceAll((key, row) -> row.trim(maxVersions));
            }
        } finally {
            table.lock.writeLock().unlock();
        }
    }

    /** How many versions of a column the table keeps. */
    private static int keptVersions(TableDescription description) {
        return Math.max(1, description.maxVersions());
    }

    public TableDescription describeTable(String name) throws EmulatorError {
        return table(name).description;
    }

    public List<String> listTables() {
        return tables.keySet().stream().sorted().toList();
    }

    public void deleteTable(String name) throws EmulatorError {
        synchronized (catalogLock) {
            table(name);
            journal(j -> j.appendDeleted(name));
            removeTable(name);
        }
    }

    private void removeTable(String name) throws EmulatorError {
        synchronized (catalogLock) {
            Table table = table(name);
            table.lock.writeLock().lock();
            try {
                table.deleted = true;
                tables.remove(name);
                listeners.forEach(l -> notifySafely(() -> l.onTableDeleted(name)));
            } finally {
                table.lock.writeLock().unlock();
            }
        }
    }

    /** An action on the journal, if the store is durable. */
    private interface JournalAction {
        void run(TableJournal journal) throws IOException;
    }

    private void journal(JournalAction action) throws EmulatorError {
        Optional<TableJournal> current = journal;
        if (current.isEmpty()) {
            return;
        }
        try {
            action.run(current.get());
        } catch (IOException e) {
            LOG.error("Cannot append to the table journal", e);
            throw new EmulatorError(
                    "OTSInternalServerError",
                    500,
                    "The emulator cannot write its data directory ("
                            + e.getMessage()
                            + "); check disk space and permissions");
        }
    }

    /** The server time of a new commit: microseconds, strictly increasing across all tables. */
    private long nextCommitMicros() {
        long now = nowMicros();
        return lastCommitMicros.updateAndGet(prev -> Math.max(prev + 1, now));
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /**
     * Applies one write if its condition holds.
     *
     * @return the row to return to the client (its primary key, when the write asked for it)
     * @throws EmulatorError OTSConditionCheckFail when the condition fails, OTSObjectNotExist or
     *     OTSParameterInvalid for a missing table or a malformed write
     */
    public Optional<Row> write(String tableName, RowWrite request) throws EmulatorError {
        Table table = table(tableName);
        TableMeta meta = table.description.meta();
        validateKey(
                meta,
                request.primaryKey(),
                false,
                request.type() != StreamRecord.RecordType.DELETE);
        validateCells(meta, RowWrite.withIncrements(request.cells(), request.increments()));
        table.lock.writeLock().lock();
        try {
            if (table.deleted) {
                throw EmulatorError.objectNotExist(NO_SUCH_TABLE);
            }
            RowWrite write =
                    hasAutoIncrementPlaceholder(request.primaryKey())
                            ? request.withKey(filled(table, request.primaryKey()))
                            : request;
            Optional<StoredRow> current = Optional.ofNullable(table.rows.get(write.primaryKey()));
            if (!write.condition().holdsFor(current)) {
                throw new EmulatorError(CONDITION_CHECK_FAIL, 403, "Condition check failed.");
            }
            long micros = nextCommitMicros();
            List<RecordColumn> stamped = new ArrayList<>(stamp(write.cells(), micros / 1000));
            stamped.addAll(incremented(current, write.increments(), micros / 1000));
            RowChange change =
                    new RowChange(tableName, write.primaryKey(), write.type(), stamped, micros);
            journal(
                    j ->
                            j.appendWritten(
                                    tableName,
                                    change.type(),
                                    change.primaryKey(),
                                    change.columns(),
                                    micros));
            commit(table, change);
            return answer(write, change.columns());
        } finally {
            table.lock.writeLock().unlock();
        }
    }

    /** What a write returns: its key with the named new values, its key alone, or nothing. */
    private static Optional<Row> answer(RowWrite write, List<RecordColumn> written) {
        if (!write.returnColumns().isEmpty()) {
            List<Column> values = new ArrayList<>();
            for (RecordColumn cell : written) {
                if (write.returnColumns().contains(cell.getColumn().getName())) {
                    values.add(cell.getColumn());
                }
            }
            return Optional.of(new Row(write.primaryKey(), values));
        }
        return write.returnPrimaryKey()
                ? Optional.of(new Row(write.primaryKey(), List.of()))
                : Optional.empty();
    }

    /** Whether {@code key} names {@code AUTO_INCREMENT} for a column, for the server to fill. */
    static boolean hasAutoIncrementPlaceholder(PrimaryKey key) {
        for (PrimaryKeyColumn column : key.getPrimaryKeyColumns()) {
            if (column.getValue().isPlaceHolderForAutoIncr()) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code key} with its auto-increment column filled, as the service fills it: a value greater
     * than every one the table gave before (the microseconds of now, or one more than the last when
     * that is later), so unique and increasing, though not consecutive. The caller holds the
     * table's write lock.
     */
    private static PrimaryKey filled(Table table, PrimaryKey key) {
        long value = Math.max(table.lastAutoIncrement + 1, nowMicros());
        table.lastAutoIncrement = value;
        List<PrimaryKeyColumn> columns = new ArrayList<>();
        for (PrimaryKeyColumn column : key.getPrimaryKeyColumns()) {
            columns.add(
                    column.getValue().isPlaceHolderForAutoIncr()
                            ? new PrimaryKeyColumn(
                                    column.getName(), PrimaryKeyValue.fromLong(value))
                            : column);
        }
        return new PrimaryKey(columns);
    }

    /**
     * The new values of an UpdateRow's atomic increments, as PUT cells at the commit time: the
     * column's newest value plus the amount; a missing column counts as 0.
     */
    private static List<RecordColumn> incremented(
            Optional<StoredRow> current, List<Column> increments, long commitMillis)
            throws EmulatorError {
        List<RecordColumn> out = new ArrayList<>(increments.size());
        for (Column increment : increments) {
            String name = increment.getName();
            long base = 0;
            Optional<Column> newest = current.flatMap(r -> r.column(name));
            if (newest.isPresent()) {
                ColumnValue value = newest.get().getValue();
                if (value.getType() != ColumnType.INTEGER) {
                    throw EmulatorError.parameterInvalid(
                            "Column '"
                                    + name
                                    + "' holds a "
                                    + value.getType()
                                    + " value; only INTEGER columns can be incremented");
                }
                base = value.asLong();
            }
            long sum = base + increment.getValue().asLong();
            out.add(
                    new RecordColumn(
                            new Column(name, ColumnValue.fromLong(sum), commitMillis),
                            RecordColumn.ColumnType.PUT));
        }
        return out;
    }

    /**
     * Applies a change to the stored row and tells the listeners, with the row's values in the
     * table's stream origin columns before the change; the caller may hold the lock.
     */
    private void commit(Table table, RowChange written) {
        table.lock.writeLock().lock();
        try {
            RowChange change = written.withBefore(before(table, written.primaryKey()));
            apply(table, change);
            listeners.forEach(l -> notifySafely(() -> l.onRowChange(change)));
        } finally {
            table.lock.writeLock().unlock();
        }
    }

    private static List<Column> before(Table table, PrimaryKey key) {
        List<String> origin = table.description.streamOriginColumns();
        StoredRow current = origin.isEmpty() ? null : table.rows.get(key);
        if (current == null) {
            return List.of();
        }
        List<Column> before = new ArrayList<>(origin.size());
        for (String name : origin) {
            current.column(name).ifPresent(before::add);
        }
        return before;
    }

    /**
     * Applies a change to the stored row. A PUT replaces the row: its cells are the new versions
     * (of cells of one column with one timestamp the last counts). An UPDATE's PUT cell adds a
     * version, or replaces the one with its timestamp; DELETE_ONE_VERSION removes the version with
     * its timestamp (if kept), DELETE_ALL_VERSION the column. Then each column keeps its newest
     * max-versions versions.
     */
    private static void apply(Table table, RowChange change) {
        PrimaryKey key = change.primaryKey();
        int maxVersions = keptVersions(table.description);
        switch (change.type()) {
            case PUT:
                {
                    SortedMap<String, NavigableMap<Long, Column>> columns = new TreeMap<>();
                    change.columns().forEach(c -> applyCell(columns, c));
                    table.rows.put(key, stored(key, columns, maxVersions));
                    break;
                }
            case UPDATE:
                {
                    SortedMap<String, NavigableMap<Long, Column>> columns = new TreeMap<>();
                    StoredRow current = table.rows.get(key);
                    if (current != null) {
                        current.columns()
                                .forEach(
                                        (name, versions) ->
                                                versions.forEach(
                                                        v ->
                                                                byTimestamp(columns, name)
                                                                        .put(v.getTimestamp(), v)));
                    }
                    change.columns().forEach(c -> applyCell(columns, c));
                    StoredRow updated = stored(key, columns, maxVersions);
                    if (updated.columns().isEmpty()) {
                        // A row whose last attribute column is deleted by an update no longer
                        // exists.
                        table.rows.remove(key);
                    } else {
                        table.rows.put(key, updated);
                    }
                    break;
                }
            default:
                table.rows.remove(key);
        }
    }

    private static NavigableMap<Long, Column> byTimestamp(
            SortedMap<String, NavigableMap<Long, Column>> columns, String name) {
        return columns.computeIfAbsent(name, n -> new TreeMap<>(Comparator.reverseOrder()));
    }

    private static StoredRow stored(
            PrimaryKey key,
            SortedMap<String, NavigableMap<Long, Column>> columns,
            int maxVersions) {
        SortedMap<String, List<Column>> kept = new TreeMap<>();
        columns.forEach(
                (name, versions) ->
                        kept.put(name, versions.values().stream().limit(maxVersions).toList()));
        return new StoredRow(key, kept);
    }

    private static void applyCell(
            SortedMap<String, NavigableMap<Long, Column>> columns, RecordColumn cell) {
        Column column = cell.getColumn();
        switch (cell.getColumnType()) {
            case PUT:
                byTimestamp(columns, column.getName()).put(column.getTimestamp(), column);
                break;
            case DELETE_ONE_VERSION:
                {
                    NavigableMap<Long, Column> versions = columns.get(column.getName());
                    if (versions != null) {
                        versions.remove(column.getTimestamp());
                    }
                    break;
                }
            default:
                columns.remove(column.getName());
        }
    }

    /** Gives PUT cells without a timestamp the commit time, as the service does. */
    private static List<RecordColumn> stamp(List<RecordColumn> cells, long commitMillis) {
        List<RecordColumn> out = new ArrayList<>(cells.size());
        for (RecordColumn cell : cells) {
            Column c = cell.getColumn();
            if (cell.getColumnType() == RecordColumn.ColumnType.PUT && !c.hasSetTimestamp()) {
                out.add(
                        new RecordColumn(
                                new Column(c.getName(), c.getValue(), commitMillis),
                                cell.getColumnType()));
            } else {
                out.add(cell);
            }
        }
        return out;
    }

    /**
     * The row with {@code key}, with the versions {@code versions} picks, projected to {@code
     * columnsToGet} (empty if absent or filtered), and the size of what was read to answer: the
     * primary key and the picked versions of the columns named (all when none are), whether the
     * filter passed the row or not; 0 for a missing row.
     */
    public RowRead getRow(
            String tableName,
            PrimaryKey key,
            Set<String> columnsToGet,
            ReadVersions versions,
            Optional<RowFilter> filter)
            throws EmulatorError {
        Table table = table(tableName);
        validateKey(table.description.meta(), key, false);
        table.lock.readLock().lock();
        try {
            StoredRow stored = table.rows.get(key);
            if (stored == null) {
                return new RowRead(Optional.empty(), 0);
            }
            return new RowRead(
                    read(stored, columnsToGet, versions, filter),
                    stored.select(versions).bytesRead(columnsToGet));
        } finally {
            table.lock.readLock().unlock();
        }
    }

    /**
     * A stored row as a read returns it: the versions the read picks, then its filter (which sees
     * the row as read, before {@code columnsToGet}), then the columns it names.
     */
    private static Optional<Row> read(
            StoredRow stored,
            Set<String> columnsToGet,
            ReadVersions versions,
            Optional<RowFilter> filter) {
        StoredRow picked = stored.select(versions);
        if (!filter.map(f -> f.test(Optional.of(picked))).orElse(true)) {
            return Optional.empty();
        }
        return picked.project(columnsToGet, !stored.columns().isEmpty());
    }

    public RangePage getRange(String tableName, RangeQuery query) throws EmulatorError {
        Table table = table(tableName);
        TableMeta meta = table.description.meta();
        validateKey(meta, query.inclusiveStart(), true);
        validateKey(meta, query.exclusiveEnd(), true);
        int order = PrimaryKeyOrder.INSTANCE.compare(query.inclusiveStart(), query.exclusiveEnd());
        if (query.forward() ? order >= 0 : order <= 0) {
            // The service's words (its error code reference and SDK tests): an empty range, start
            // equal to end, is refused too.
            throw EmulatorError.parameterInvalid(
                    query.forward()
                            ? "Begin key must less than end key in FORWARD"
                            : "Begin key must more than end key in BACKWARD");
        }
        table.lock.readLock().lock();
        try {
            return scan(range(table, query), query);
        } finally {
            table.lock.readLock().unlock();
        }
    }

    private static NavigableMap<PrimaryKey, StoredRow> range(Table table, RangeQuery query) {
        return query.forward()
                ? table.rows.subMap(query.inclusiveStart(), true, query.exclusiveEnd(), false)
                : table.rows
                        .subMap(query.exclusiveEnd(), false, query.inclusiveStart(), true)
                        .descendingMap();
    }

    private static RangePage scan(NavigableMap<PrimaryKey, StoredRow> range, RangeQuery query) {
        int pageSize =
                query.limit() > 0 ? Math.min(query.limit(), MAX_ROWS_PER_PAGE) : MAX_ROWS_PER_PAGE;
        List<Row> rows = new ArrayList<>();
        long bytesRead = 0;
        int scanned = 0;
        for (StoredRow stored : range.values()) {
            long rowBytes = stored.select(query.versions()).bytesRead(query.columnsToGet());
            if (rows.size() == pageSize
                    || (scanned > 0 && bytesRead + rowBytes > MAX_BYTES_PER_PAGE)) {
                return new RangePage(rows, Optional.of(stored.primaryKey()), bytesRead);
            }
            bytesRead += rowBytes;
            scanned++;
            read(stored, query.columnsToGet(), query.versions(), query.filter())
                    .ifPresent(rows::add);
        }
        return new RangePage(rows, Optional.empty(), bytesRead);
    }

    /**
     * Split points of the table's key space, as ComputeSplitPointsBySize answers: values of the
     * first primary-key column, ascending, each starting a new split. The service cuts where its
     * storage partitions and size statistics say; the emulator walks the rows in key order and cuts
     * before the row at which the rows so far reach {@code splitBytes} (each row counted by the
     * SDK's data size of its key and columns), never twice on one first-column value, and keeps at
     * most {@code maxPoints} points. An empty or small table gets none: one split.
     */
    public List<PrimaryKeyValue> splitPoints(String tableName, long splitBytes, int maxPoints)
            throws EmulatorError {
        Table table = table(tableName);
        table.lock.readLock().lock();
        try {
            List<PrimaryKeyValue> points = new ArrayList<>();
            long bytes = 0;
            for (StoredRow row : table.rows.values()) {
                PrimaryKeyValue first = row.primaryKey().getPrimaryKeyColumn(0).getValue();
                boolean newValue =
                        points.isEmpty()
                                || PrimaryKeyOrder.compareValues(
                                                points.get(points.size() - 1), first)
                                        < 0;
                if (bytes >= splitBytes && newValue && points.size() < maxPoints) {
                    points.add(first);
                    bytes = 0;
                }
                bytes += rowBytes(row);
            }
            return points;
        } finally {
            table.lock.readLock().unlock();
        }
    }

    /** The table's primary-key schema, in order. */
    public List<PrimaryKeySchema> primaryKeySchema(String tableName) throws EmulatorError {
        return table(tableName).description.meta().getPrimaryKeyList();
    }

    private static long rowBytes(StoredRow row) {
        long bytes = row.primaryKey().getDataSize();
        for (List<Column> versions : row.columns().values()) {
            for (Column version : versions) {
                bytes += version.getDataSize();
            }
        }
        return bytes;
    }

    @Override
    public Optional<TableMeta> tableMeta(String table) {
        return Optional.ofNullable(tables.get(table)).map(t -> t.description.meta());
    }

    @Override
    public List<Row> snapshot(
            String tableName, PrimaryKey startInclusive, PrimaryKey endExclusive) {
        Table table = tables.get(tableName);
        if (table == null || PrimaryKeyOrder.INSTANCE.compare(startInclusive, endExclusive) >= 0) {
            return List.of();
        }
        table.lock.readLock().lock();
        try {
            return table.rows.subMap(startInclusive, true, endExclusive, false).values().stream()
                    .map(row -> row.select(ReadVersions.NEWEST).toRow())
                    .toList();
        } finally {
            table.lock.readLock().unlock();
        }
    }

    private Table table(String name) throws EmulatorError {
        Table table = tables.get(name);
        if (table == null) {
            throw EmulatorError.objectNotExist(NO_SUCH_TABLE);
        }
        return table;
    }

    private static void notifySafely(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            // A listener bug must not turn an applied write into an error for the client.
            LOG.error("A table listener failed", e);
        }
    }

    private static void validateSchema(TableMeta meta) throws EmulatorError {
        Limits.tableName(meta.getTableName());
        List<PrimaryKeySchema> pk = meta.getPrimaryKeyList();
        for (PrimaryKeySchema column : pk) {
            Limits.columnName(column.getName());
        }
        for (var column : meta.getDefinedColumnsList()) {
            Limits.columnName(column.getName());
        }
        Limits.primaryKeyCount(pk.size());
        String autoIncrement = null;
        for (int i = 0; i < pk.size(); i++) {
            PrimaryKeySchema column = pk.get(i);
            if (!column.hasOption()) {
                continue;
            }
            if (i == 0) {
                throw EmulatorError.parameterInvalid(
                        "The partition key '"
                                + column.getName()
                                + "' cannot be an auto-increment column; make a later"
                                + " primary-key column auto-increment");
            }
            if (column.getType() != PrimaryKeyType.INTEGER) {
                throw EmulatorError.parameterInvalid(
                        "The auto-increment primary-key column '"
                                + column.getName()
                                + "' must be INTEGER, not "
                                + column.getType());
            }
            if (autoIncrement != null) {
                throw EmulatorError.parameterInvalid(
                        "A table has at most one auto-increment primary-key column: '"
                                + autoIncrement
                                + "' and '"
                                + column.getName()
                                + "' are both");
            }
            autoIncrement = column.getName();
        }
    }

    /**
     * Checks that a key has the table's primary-key columns, in order, with their types, in the
     * service's words (its SDK tests {@code DataOperationTest} and {@code ParameterLegalityTest}).
     */
    static void validateKey(TableMeta meta, PrimaryKey key, boolean infAllowed)
            throws EmulatorError {
        validateKey(meta, key, infAllowed, false);
    }

    /**
     * Like {@link #validateKey(TableMeta, PrimaryKey, boolean)}; {@code placeholderAllowed} for the
     * key of a put or an update, which may name {@code AUTO_INCREMENT} in the table's
     * auto-increment column for the server to fill.
     */
    static void validateKey(
            TableMeta meta, PrimaryKey key, boolean infAllowed, boolean placeholderAllowed)
            throws EmulatorError {
        List<PrimaryKeySchema> schema = meta.getPrimaryKeyList();
        PrimaryKeyColumn[] columns = key.getPrimaryKeyColumns();
        if (columns.length != schema.size()) {
            throw EmulatorError.invalidPk(
                    "Validate PK size fail. Input: "
                            + columns.length
                            + ", Meta: "
                            + schema.size()
                            + ".");
        }
        for (int i = 0; i < columns.length; i++) {
            PrimaryKeySchema expected = schema.get(i);
            PrimaryKeyValue value = columns[i].getValue();
            if (!columns[i].getName().equals(expected.getName())) {
                throw EmulatorError.invalidPk(
                        "Validate PK name fail. Input: "
                                + columns[i].getName()
                                + ", Meta: "
                                + expected.getName()
                                + ".");
            }
            if (value.isPlaceHolderForAutoIncr()) {
                if (!expected.hasOption()) {
                    throw EmulatorError.parameterInvalid(
                            "Primary-key column '"
                                    + expected.getName()
                                    + "' is not an auto-increment column; AUTO_INCREMENT is for"
                                    + " such columns only");
                }
                if (!placeholderAllowed) {
                    throw EmulatorError.parameterInvalid(
                            "AUTO_INCREMENT in primary-key column '"
                                    + expected.getName()
                                    + "' names no row: it is for a new row's key in PutRow,"
                                    + " UpdateRow or BatchWriteRow; read or delete a row by the"
                                    + " value its write returned (ReturnType RT_PK)");
                }
                continue;
            }
            boolean inf = value.isInfMin() || value.isInfMax();
            if (inf && !infAllowed) {
                throw EmulatorError.parameterInvalid(
                        wireType(value) + " is an invalid type for the primary key.");
            }
            if (!inf && value.getType() != expected.getType()) {
                throw EmulatorError.invalidPk(
                        "Validate PK type fail. Input: "
                                + wireType(value)
                                + ", Meta: "
                                + wireType(expected.getType())
                                + ".");
            }
        }
    }

    /** A primary-key value's type as the service names it. */
    static String wireType(PrimaryKeyValue value) {
        if (value.isInfMin()) {
            return "VT_INF_MIN";
        }
        if (value.isInfMax()) {
            return "VT_INF_MAX";
        }
        return wireType(value.getType());
    }

    private static String wireType(PrimaryKeyType type) {
        return type == PrimaryKeyType.BINARY ? "VT_BLOB" : "VT_" + type.name();
    }

    private static void validateCells(TableMeta meta, List<RecordColumn> cells)
            throws EmulatorError {
        for (RecordColumn cell : cells) {
            if (meta.getPrimaryKeyMap().containsKey(cell.getColumn().getName())) {
                // The service's words (its error code reference).
                throw EmulatorError.parameterInvalid(
                        "Duplicated attribute column name with primary key column: "
                                + cell.getColumn().getName()
                                + ".");
            }
        }
    }
}
