package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.model.Row;
import java.util.List;
import java.util.Optional;

/**
 * What one readrecords call returns, copied out of the service's state so it can be encoded without
 * holding the lock.
 *
 * @param baseRows the snapshot rows (base-data channels)
 * @param entries the log entries (stream channels)
 * @param next the next position; empty when the channel is finished after these records
 * @param mayMore whether more records were already available when the batch was cut
 */
record ReadBatch(
        List<Row> baseRows, List<LogEntry> entries, Optional<ChannelToken> next, boolean mayMore) {

    static ReadBatch finished(List<Row> baseRows, List<LogEntry> entries) {
        return new ReadBatch(baseRows, entries, Optional.empty(), false);
    }
}
