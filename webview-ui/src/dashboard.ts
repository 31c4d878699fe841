/** Entry of dist/webview/dashboard.js: the connection usage dashboard (<usage-dashboard>). */
import './dashboard/usageDashboard.ts';
