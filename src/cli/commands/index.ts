import type { Command } from '../shared/command.js';
import { cancel } from './cancel.js';
import { check } from './check.js';
import { evalCompare } from './eval-compare.js';
import { evalDatasetAdd } from './eval-dataset-add.js';
import { evalRun } from './eval-run.js';
import { approve, reject } from './decide.js';
import { exportCommand } from './export.js';
import { inDoubtList, inDoubtResolve } from './in-doubt.js';
import { inspect } from './inspect.js';
import { memoryForget } from './memory-forget.js';
import { memoryList } from './memory-list.js';
import { memorySearch } from './memory-search.js';
import { memoryShow } from './memory-show.js';
import { resume } from './resume.js';
import { schedulesAdd } from './schedules-add.js';
import { schedulesDelete } from './schedules-delete.js';
import { schedulesList } from './schedules-list.js';
import { schedulesNext } from './schedules-next.js';
import { schedulesPause, schedulesResume } from './schedules-pause.js';
import { send } from './send.js';
import { sessionsDelete } from './sessions-delete.js';
import { sessionsFork } from './sessions-fork.js';
import { sessionsHistory } from './sessions-history.js';
import { sessionsList } from './sessions-list.js';
import { sessionsShow } from './sessions-show.js';
import { workflowsCancel } from './workflows-cancel.js';
import { workflowsApprove, workflowsReject } from './workflows-decide.js';
import { workflowsList } from './workflows-list.js';
import { workflowsSend } from './workflows-send.js';
import { workflowsShow } from './workflows-show.js';

/** Every command, in the order `agentstate --help` lists them. */
export const COMMANDS: readonly Command[] = [
  sessionsList,
  sessionsShow,
  sessionsHistory,
  sessionsFork,
  sessionsDelete,
  approve,
  reject,
  inDoubtList,
  inDoubtResolve,
  send,
  resume,
  cancel,
  workflowsList,
  workflowsShow,
  workflowsSend,
  workflowsCancel,
  workflowsApprove,
  workflowsReject,
  memoryList,
  memoryShow,
  memorySearch,
  memoryForget,
  schedulesList,
  schedulesAdd,
  schedulesPause,
  schedulesResume,
  schedulesDelete,
  schedulesNext,
  exportCommand,
  check,
  evalDatasetAdd,
  evalRun,
  evalCompare,
  inspect,
];
