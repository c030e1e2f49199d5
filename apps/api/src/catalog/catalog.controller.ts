import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { STEP_TYPE_CATALOG, TRIGGER_TYPE_CATALOG } from '@app/domain';
import { ApiAnswers } from '../common/openapi';

/** The step and trigger types with the JSON Schema of their fields, for forms. */
@ApiTags('catalog')
@ApiBearerAuth()
@Controller()
export class CatalogController {
  @Get('step-types')
  @ApiAnswers(200, { type: 'array', items: { $ref: '#/components/schemas/TypeInfo' } })
  stepTypes() {
    return STEP_TYPE_CATALOG;
  }

  @Get('trigger-types')
  @ApiAnswers(200, { type: 'array', items: { $ref: '#/components/schemas/TypeInfo' } })
  triggerTypes() {
    return TRIGGER_TYPE_CATALOG;
  }
}
