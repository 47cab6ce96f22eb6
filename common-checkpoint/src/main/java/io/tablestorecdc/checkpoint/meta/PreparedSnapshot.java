package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.List;
import java.util.Map;

/**
 * One tunnel's planned snapshot as rows, not yet written: its batch log row, its manifest and the
 * entries carried now. Made by {@link TunnelMeta#prepare}; written with the snapshots of other
 * tunnels by {@link TunnelMeta#writeAll}, in the order one snapshot is written alone.
 */
@Internal
public final class PreparedSnapshot {

    private final SnapshotWriter writer;
    private final BatchToken token;
    private final MetaRow logRow;
    private final MetaRowFormat.Manifest manifest;
    private final MetaRow manifestRow;
    private final List<MetaRow> entryRows;
    private final Map<String, ChannelCheckpoint> fullEntries;
    private final List<MetaRow> adoptionRows;

    PreparedSnapshot(
            SnapshotWriter writer,
            BatchToken token,
            MetaRow logRow,
            MetaRowFormat.Manifest manifest,
            MetaRow manifestRow,
            List<MetaRow> entryRows,
            Map<String, ChannelCheckpoint> fullEntries,
            List<MetaRow> adoptionRows) {
        this.writer = writer;
        this.token = token;
        this.logRow = logRow;
        this.manifest = manifest;
        this.manifestRow = manifestRow;
        this.entryRows = entryRows;
        this.fullEntries = fullEntries;
        this.adoptionRows = adoptionRows;
    }

    /** The batch token the snapshot is written under. */
    public BatchToken token() {
        return token;
    }

    /** The tunnel whose snapshot it is. */
    public String tunnelId() {
        return logRow.key().tunnelId();
    }

    /**
     * How many rows writing it takes: the adoption records, the log row, the manifest and the
     * carried entries.
     */
    public int rowCount() {
        return adoptionRows.size() + 2 + entryRows.size();
    }

    /** The same snapshot, with the adoption records of {@code adopted} written before it. */
    PreparedSnapshot withAdoptions(List<MetaRow> adopted) {
        return new PreparedSnapshot(
                writer, token, logRow, manifest, manifestRow, entryRows, fullEntries, adopted);
    }

    List<MetaRow> adoptionRows() {
        return adoptionRows;
    }

    SnapshotWriter writer() {
        return writer;
    }

    MetaRow logRow() {
        return logRow;
    }

    MetaRowFormat.Manifest manifest() {
        return manifest;
    }

    MetaRow manifestRow() {
        return manifestRow;
    }

    List<MetaRow> entryRows() {
        return entryRows;
    }

    /** Every entry of a snapshot written in full, by channel id; null for a delta. */
    Map<String, ChannelCheckpoint> fullEntries() {
        return fullEntries;
    }
}
