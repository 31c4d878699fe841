import { css } from 'lit';

/** What every chart shares: its legend, and the accessible "Show as table" alternative. */
export const chartStyles = css`
  .legend {
    display: flex;
    gap: 12px;
    align-items: center;
    margin: 4px 0;
  }
  .swatch {
    display: inline-block;
    width: 10px;
    height: 10px;
    margin-right: 4px;
    border: 1px solid var(--vscode-contrastBorder, transparent);
  }
  table {
    border-collapse: collapse;
    margin-top: 4px;
  }
  th,
  td {
    text-align: right;
    padding: 2px 10px;
    border-bottom: 1px solid var(--vscode-panel-border);
    font-variant-numeric: tabular-nums;
  }
  th:first-child,
  td:first-child {
    text-align: left;
    overflow-wrap: anywhere;
  }
  summary {
    cursor: pointer;
    color: var(--vscode-textLink-foreground);
  }
`;
